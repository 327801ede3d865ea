/* Versions and version ranges of declared dependencies: PEP 440 versions,
 * their order, and sets of versions (a specifier set such as
 * `>=1.15,<1.16`, a poetry constraint `^1.15`, a conda spec `=1.15`) with
 * intersection, union, complement and inclusion, so a rule about some
 * versions of a package can tell whether a manifest pins one of them,
 * may resolve to one, or excludes them all.
 *
 * A set is a union of intervals over public versions (epoch, release,
 * pre-, post- and development release); a local label (`+cu121`) does not
 * move a version out of a set, as PEP 440 says for every operator but
 * `===` and `==V+local`, both read here as `==V`. The exclusions PEP 440
 * adds to `<V` and `>V` are kept: `<1.16` admits no 1.16 pre-release and
 * `>1.15` no 1.15 post-release. Two approximations, both about versions
 * that hardly exist: `<V` for a post-release V admits the development
 * releases of earlier post-releases of its base (`1.15.post0.dev1` under
 * `<1.15.post1`), and `>V` for a pre-release V the post-releases of later
 * pre-releases (`1.15a2.post1` under `>1.15a1`), which PEP 440 excludes. */
#ifndef MT_DEPS_VERSION_H
#define MT_DEPS_VERSION_H

#include <stddef.h>
#include <stdint.h>

#include "deps.h"

/* Release numbers a version may have (1.2.3 has 3). */
#define MT_VERSION_MAX_RELEASE 16

typedef struct {
	uint64_t epoch;
	uint64_t release[MT_VERSION_MAX_RELEASE];
	size_t nrelease;
	int pre; /* -1: none; 0: a, 1: b, 2: rc */
	uint64_t pre_n;
	int has_post;
	uint64_t post_n;
	int has_dev;
	uint64_t dev_n;
	char local[64]; /* lowercase, '.'-separated; "" for none */
} mt_version;

/* Parses a PEP 440 version (any spelling PEP 440 normalises: `v1.0`,
 * `1.0-alpha.1`, `1.0.post`, `1!2.0`, `1.0+Local_1`). MT_EINVALID
 * "not a PEP 440 version: 'TEXT' (what)". */
int mt_version_parse(mt_version *out, const char *s, size_t len);

/* <0, 0, >0 in PEP 440 order (local labels compared last). */
int mt_version_cmp(const mt_version *a, const mt_version *b);

/* The normalised form (`1.0a1.post2.dev3+local`) into buf. */
void mt_version_format(char *buf, size_t size, const mt_version *v);

typedef struct mt_vset mt_vset;

/* A PEP 440 specifier set (`>=1.0, !=1.3.*, <2`; "" is every version).
 * MT_EINVALID naming the clause and what is wrong with it. */
int mt_vset_parse(mt_vset **out, const char *s, size_t len);

/* A poetry constraint: `^1.2`, `~1.2`, `1.2.3`, `*`, `>=1,<2`, `1.2.*`,
 * alternatives joined by `||`. */
int mt_vset_parse_poetry(mt_vset **out, const char *s, size_t len);

/* The version part of a conda match spec: `=1.2` (1.2.*), `1.2` (exactly),
 * `1.2*`, `>=1,<2`, alternatives joined by `|`. */
int mt_vset_parse_conda(mt_vset **out, const char *s, size_t len);

/* Every version. */
mt_vset *mt_vset_any(void);
mt_vset *mt_vset_intersect(const mt_vset *a, const mt_vset *b);
mt_vset *mt_vset_union(const mt_vset *a, const mt_vset *b);
mt_vset *mt_vset_complement(const mt_vset *a);
int mt_vset_is_empty(const mt_vset *s);
int mt_vset_is_any(const mt_vset *s);
/* 1 if every version of a is in b. */
int mt_vset_is_subset(const mt_vset *a, const mt_vset *b);
int mt_vset_contains(const mt_vset *s, const mt_version *v);
void mt_vset_free(mt_vset *s);

/* What a dependency allows: *out the set of versions its spec admits, by
 * the manifest's syntax (d->syntax). MT_ENOTFOUND when the spec names no
 * version mtrial can read (a VCS or directory reference, a poetry table
 * whose version sits in its own [table]): *why says which; MT_EINVALID
 * when the version part is malformed. */
int mt_deps_versions(mt_vset **out, const char **why, const mt_dependency *d);

/* How a dependency stands against a set of affected versions. */
typedef enum {
	MT_VMATCH_NONE,     /* it admits none of them */
	MT_VMATCH_PINNED,   /* every version it admits is affected */
	MT_VMATCH_POSSIBLE, /* it admits some affected and some other versions */
	MT_VMATCH_UNKNOWN,  /* its version cannot be read (a VCS URL...) */
} mt_vmatch;

/* Classifies d against `affected`; *why (static text) says why when
 * possible or unknown. A spec that cannot be read counts as unknown. */
mt_vmatch mt_deps_version_match(const mt_dependency *d, const mt_vset *affected,
				const char **why);

#endif
