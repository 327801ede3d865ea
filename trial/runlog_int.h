/* The reading rules of tables/run_events.yaml as runlog.c and
 * runlog_rules.c share them: private to those two files. */
#ifndef MT_RUNLOG_INT_H
#define MT_RUNLOG_INT_H

#include <stddef.h>
#include "runlog.h"

/* The protocol's fields, in the order of protocol.fields. */
enum pfield { PF_STEP, PF_LOSS, PF_TOKENS, PF_SAMPLES, PF_EPOCH, PF_TIME, PF_PADDED, PF_SEQ, PF_DATA, PF_COMM, PF_COUNT };

/* A NULL-terminated list of words. */
struct words {
	char **w;
	size_t n;
};

struct key_rule {
	char *key;
	size_t len;
	enum mt_run_event_kind kind;
};

struct mt_runlog_rules {
	char *mllog_prefix;
	size_t mllog_len, proto_len;       /* of the prefixes */
	size_t mllog_anchor, proto_anchor; /* where find_prefix looks first */
	struct key_rule *keys;
	size_t n_keys;
	char *proto_prefix;
	char *eval_word;
	char *fields[PF_COUNT];
	struct words series[MT_SERIES_COUNT];
	struct words cache_hit, cache_miss; /* substrings of a compile cache line */
	char cache_anchor; /* a byte every one of them holds (their prefix_anchor), else 0 */
};

#endif
