/* Private to python/deps*.c: what the manifest parsers and the version
 * specifier reader share. */
#ifndef MT_DEPS_INT_H
#define MT_DEPS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "deps.h"
#include "deps_version.h"

/* What deps.c (requirements, the CUDA table, choosing a parser)
 * shares with the other manifest parsers, deps_toml.c (pyproject.toml),
 * deps_setup.c (setup.py, setup.cfg) and deps_conda.c (environment.yml). */
/* Bounds recursion on hostile input ("[[[[..." in TOML or setup.py). */
#define MT_DEPS_MAX_DEPTH 64

/* The entries found so far in one manifest. */
struct mt_deplist {
	mt_dependency *v;
	size_t n, cap;
	const char *file; /* the manifest's path, for entries and messages */
};

/* Appends an entry: name[0..nlen) (normalised unless an include) and the
 * spec as written (NULL for none). */
void mt_deps__add(struct mt_deplist *l, const char *name, size_t nlen, const char *spec,
		  size_t slen, uint32_t line, int include);

/* Sets MT_EINVALID "file:LINE: what" and returns it. */
int mt_deps__fail(const struct mt_deplist *l, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Adds one requirement as pip reads a logical line of a requirements file
 * (comment already removed); MT_EINVALID when it is none. */
int mt_deps__requirement(struct mt_deplist *l, const char *s, size_t len, uint32_t line);

/* strchr for a set, where NUL (possible in the input) is never a member. */
int mt_deps__in_set(int c, const char *set);
/* A letter, digit, '-', '_' or '.': what a package name is made of. */
int mt_deps__is_name_char(char c);
/* Narrows s[0..*len) to drop blanks at both ends. */
void mt_deps__trim(const char **s, size_t *len);
/* The length of s[0..len) before a `#` comment (pip's rule). */
size_t mt_deps__uncomment(const char *s, size_t len);

/* The parsers of deps_*.c, by manifest: 0 or MT_EINVALID. */
int mt_deps__pyproject(struct mt_deplist *l, const char *text, size_t len);
int mt_deps__setup_py(struct mt_deplist *l, const char *text, size_t len);
int mt_deps__setup_cfg(struct mt_deplist *l, const char *text, size_t len);
int mt_deps__environment(struct mt_deplist *l, const char *text, size_t len);

/* What deps_spec.c (reading specifiers) builds sets with. */
enum mt_vop {
	MT_VOP_EQ,         /* == V (also === V) */
	MT_VOP_NE,         /* != V */
	MT_VOP_PREFIX,     /* == V.* (V: release numbers only) */
	MT_VOP_NOT_PREFIX, /* != V.* */
	MT_VOP_LT,
	MT_VOP_LE,
	MT_VOP_GT,
	MT_VOP_GE,
	MT_VOP_COMPAT, /* ~= V, V with two release numbers or more */
};
/* The set of one clause `op v`. */
mt_vset *mt_vset__clause(enum mt_vop op, const mt_version *v);
/* out: v's release cut to n numbers (padded with zeros), the last plus one. */
void mt_version__bump(mt_version *out, const mt_version *v, size_t n);

#endif
