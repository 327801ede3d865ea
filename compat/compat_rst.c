/* The RST reader of compat_import: one-column operator lists ("| aten::add |"
 * grid cells, "- aten::add" bullets), each listed op a device op. */
#include "compat_import_int.h"
#include "compat.h"
#include "error.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* One RST line: 1 with the op it names in out ("| aten::add |", "- ``aten::add``"),
 * 0 for a list item or grid line that names none, 2 for a row of a grid
 * table with several columns, -1 for anything else. */
static int rst_line(char *out, size_t size, char *line)
{
	char *s = mt_compat__trim(line), *end;

	if (*s == '+' && strspn(s, "+-=") == strlen(s))
		return 0; /* a grid table's border */
	if (*s == '|') {
		s++;
		if ((end = strchr(s, '|')) && strspn(end, "| \t") < strlen(end))
			return 2; /* several columns: a status this reader would drop */
		if (end)
			*end = '\0';
	} else if ((*s == '-' || *s == '*' || *s == '+') && s[1] == ' ') {
		s += 2;
	} else if (s[0] == '#' && s[1] == '.' && s[2] == ' ') {
		s += 3;
	} else if (isdigit((unsigned char)*s) && s[strspn(s, "0123456789")] == '.' &&
		   s[strspn(s, "0123456789") + 1] == ' ') {
		s += strspn(s, "0123456789") + 2;
	} else {
		return -1;
	}
	s = mt_compat__trim(s);
	if (!strstr(s, "::") || strchr(s, ' '))
		return 0; /* prose in a list, or a name without its namespace */
	return mt_compat__op_name(out, size, s) == 0;
}

/* A list under "limited support" or "removed" is no list of supported ops. */
static int rst_context_says_not(const char *context)
{
	static const char *const words[] = {"limited", "removed", "deprecat", "unsupported",
					    "not supported", "partial", NULL};
	char w[512];

	mt_compat__norm(w, sizeof(w), context);
	for (int i = 0; words[i]; i++)
		if (strstr(w, words[i]))
			return 1;
	return 0;
}

int mt_compat__from_rst(struct entries *e, struct identity *id, const char *text, size_t len,
			const mt_compat_import_convert_options *o)
{
	struct lines l;
	size_t listed = 0, context = 0;
	int error = 0;

	mt_compat__lines_split(&l, text, len);
	for (size_t i = 0; i < l.n && !error; i++) {
		char op[256];
		int kind = rst_line(op, sizeof(op), l.v[i]);
		if (kind < 0 && *mt_compat__trim(l.v[i]) &&
		    strspn(mt_compat__trim(l.v[i]), "=-^~*#\"'`") <
			    strlen(mt_compat__trim(l.v[i])))
			context = i + 1; /* the prose that introduces what follows */
		if (kind <= 0)
			continue;
		if (kind == 2) {
			error = mt_error_set(MT_EINVALID, "%s:%zu: a grid table with several "
					     "columns: RST is read as one-column operator lists; "
					     "give the table as Markdown", o->origin, i + 1);
			break;
		}
		if (context && rst_context_says_not(l.v[context - 1]))
			error = mt_error_set(MT_EINVALID, "%s:%zu: %s is listed under \"%s\" (line "
					     "%zu): an RST list is read as ops supported on the "
					     "device; give the statuses in a Markdown table instead",
					     o->origin, i + 1, op, l.v[context - 1], context);
		listed++;
		if (!error && !mt_compat__entry_find(e, op))
			mt_compat__entry_add(e, op, MT_COMPAT_DEVICE, (unsigned)i + 1);
	}
	mt_compat__lines_dispose(&l);
	if (!error && !e->n)
		error = mt_error_set(MT_EINVALID, "%s: no operator names found (an RST list has "
				     "lines like '| aten::add |' or '- aten::add')", o->origin);
	if (error)
		return error;
	mt_buf_printf(&id->note, "Imported from %s, an RST list of %zu operator names (%zu "
		      "distinct) with no status column: every listed op is device. An op the "
		      "list does not name is unknown, not unsupported.", o->origin, listed,
		      e->n);
	return 0;
}
