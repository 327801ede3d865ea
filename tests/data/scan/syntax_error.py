def broken(:
    return "unterminated
