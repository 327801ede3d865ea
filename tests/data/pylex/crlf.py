# CRLF line endings.
import torch
if torch.cuda.is_available():
    x = torch.ones(2, \
                   device="cuda")

    s = """multi
line
"""
    t = f"""{x}
{s!r}
"""
    u = "a\
b"
    v = [1,  # c
         2]
y = 1
