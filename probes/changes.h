/* What a track changed: the diff between its base and head revisions
 * (libgit2, no checkout), each changed line platform-specific or generic by
 * the rules of tables/platform_changes.yaml, each file model code, training
 * harness or other by its path. */
#ifndef MT_CHANGES_H
#define MT_CHANGES_H

#include <stddef.h>
#include <jansson.h>

typedef struct mt_change_rules mt_change_rules;

/* The bundled rules, or $MTRIAL_TABLES_DIR's platform_changes.yaml. */
int mt_change_rules_load(mt_change_rules **out);

/* Rules from text; a malformed file is MT_EINVALID "name:LINE:COL: what". */
int mt_change_rules_parse(mt_change_rules **out, const char *text, size_t len,
			  const char *name);

void mt_change_rules_free(mt_change_rules *r);

/* The platform rule a line matches ("neuron-device"), or NULL. */
const char *mt_change_rules_match(const mt_change_rules *r, const char *line, size_t len);

/* "model", "harness" or "other" for a path. Static. */
const char *mt_change_rules_kind(const mt_change_rules *r, const char *path);

/* The changes from `base` to `head` (any revision libgit2 reads) in the
 * repository at (or above) `repo`, renames found. *out: {base, head (full
 * commit ids), files [{path, old_path?, status, kind, binary, added,
 * deleted, platform, generic, rules {id: lines}}], totals {files, added,
 * deleted, platform, generic, by_kind {model, harness, other: lines},
 * by_rule {id: lines}}, examples [{rule, why, file, line, text}] (the first
 * 3 lines of each rule)}. Counts are of added plus deleted lines.
 * MT_ENOTFOUND for a revision that does not exist, naming it. */
int mt_changes_diff(json_t **out, const char *repo, const char *base, const char *head,
		    const mt_change_rules *rules);

#endif
