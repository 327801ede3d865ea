/* The rules as loaded (rules.c) and as matched (findings.c): private to
 * the two halves of the findings rules. */
#ifndef MT_RULES_INT_H
#define MT_RULES_INT_H

#include "rules.h"
#include "deps_version.h"

#include <stddef.h>

enum subject {
	SUBJ_CALL,
	SUBJ_METHOD,
	SUBJ_CALLEE,
	SUBJ_REF,
	SUBJ_STRING,
	SUBJ_IMPORT,
	SUBJ_PATH,
	SUBJ_DEPENDENCY,
	SUBJ_KWARG, /* last: a subject only when no call/method/callee is given */
	SUBJ_COUNT
};

/* A pattern, with the shape that lets most subjects be rejected without
 * fnmatch: rules are matched against every call of every file. */
enum glob_shape {
	GLOB_EXACT,    /* no wildcard: strcmp */
	GLOB_PREFIX,   /* `torch.cuda.*`: the literal prefix, then anything */
	GLOB_CONTAINS, /* `*collate*`: a literal anywhere */
	GLOB_SUFFIX,   /* `*:nccl`: anything, then the literal */
	GLOB_GENERAL,  /* anything else: literal prefix check, then fnmatch */
};

struct glob {
	char *pat;
	size_t lit; /* bytes before the first wildcard (all of them when exact) */
	const char *core; /* the literal of CONTAINS and SUFFIX, within pat */
	size_t ncore;
	enum glob_shape shape;
};

struct globs {
	struct glob *v;
	size_t n;
};

struct rule {
	char *id, *kind, *effort, *message;
	size_t kind_id; /* rules of one kind share it: the dedup key */
	enum subject subject;
	struct globs subj, except, arg0, kwarg, value, spec;
	int strings_only; /* literal: string */
	int table;        /* table: cuda_packages.yaml */
	mt_vset *versions; /* versions: the affected versions, NULL for any */
	char *versions_text; /* as written */
	char *date;        /* date: when the source said so (YYYY-MM-DD) */
	char *cite;        /* the source's url, repository/path or reference */
};

struct mt_rules {
	struct rule *v;
	size_t n;
	/* the indexes of the rules of each subject, in table order: a file's
	 * calls are matched against the call-shaped rules only */
	size_t *by_subject[SUBJ_COUNT];
	size_t nby_subject[SUBJ_COUNT];
};

#endif
