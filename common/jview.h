/* Reading another layer's JSON (stored metrics, results kept in the
 * journal) into a C struct, key by key. The struct is the interface; this
 * reader is the one place its keys are spelled, in the module that owns
 * the shape. A key that is asked for and absent is counted and named, so a
 * test on a real, complete record fails on a key renamed on one side only:
 * without it a mistyped key silently reads as "none". */
#ifndef MT_JVIEW_H
#define MT_JVIEW_H

#include <jansson.h>
#include <stdint.h>

typedef struct mt_jview {
	const json_t *obj;
	const char *shape; /* names the shape in messages: "run metrics" */
	unsigned missing;  /* required keys asked for and absent */
	char first_missing[64];
} mt_jview;

/* Starts reading object obj (borrowed; NULL or not an object reads as
 * empty, and every required key as missing). */
void mt_jview_init(mt_jview *v, const json_t *obj, const char *shape);

/* A view of the object under `key` (a required key), for nested shapes;
 * its missing keys add to the parent's count when it is closed. */
void mt_jview_sub(mt_jview *sub, mt_jview *v, const char *key);
void mt_jview_close(mt_jview *sub, mt_jview *v);

/* Required keys: absent counts as missing; present but null (a value
 * known to be unknown) or of another type reads as none without counting.
 * Strings and values are borrowed from the object. */
const char *mt_jview_str(mt_jview *v, const char *key);
double mt_jview_num(mt_jview *v, const char *key);                /* NAN */
int64_t mt_jview_int(mt_jview *v, const char *key, int64_t none); /* none */
int mt_jview_bool(mt_jview *v, const char *key, int none);        /* none */
const json_t *mt_jview_get(mt_jview *v, const char *key);         /* NULL */

/* Optional keys (a shape's keys that older records or some producers lack):
 * absent is none, never counted. */
const char *mt_jview_opt_str(mt_jview *v, const char *key);
double mt_jview_opt_num(mt_jview *v, const char *key);
int64_t mt_jview_opt_int(mt_jview *v, const char *key, int64_t none);
const json_t *mt_jview_opt_get(mt_jview *v, const char *key);

/* 0 when every required key was there; else -1 with an error naming the
 * shape, the first missing key and how many were missing. */
int mt_jview_complete(const mt_jview *v);

#endif
