/* What scan.c and scan_assemble.c share: the per-file results the workers
 * make and the step that turns them into a mt_scan_result. Private to
 * mt_scan. */
#ifndef MT_SCAN_INT_H
#define MT_SCAN_INT_H

#include "arena.h"
#include "rules.h"
#include "gitread.h"
#include "scan.h"
#include "util.h"

#include <stddef.h>
#include <stdint.h>

/* What one file needs: Python source, a dependency manifest, or only its
 * path (a .cu file is a finding by name alone). */
enum file_kind { FILE_OTHER, FILE_PYTHON, FILE_MANIFEST };

/* One file's result, as C arrays: building tens of thousands of jansson
 * objects for the call sites of a large repository costs more than the scan
 * itself. Strings live in `arena`; op strings may be borrowed from the
 * opmap. */
struct fcall {
	const char *api, *op;
	uint32_t line, col;
};
struct fmethod {
	const char *name, *op;
	uint32_t line;
	int certain;     /* the receiver is known to be a tensor */
	const char *why; /* in fresult.nots: what the receiver is instead */
};
struct ffinding {
	const char *rule, *kind, *effort, *message;
	uint32_t line, col;
	const char *details; /* mt_finding.details, or NULL */
};
struct fdep {
	const char *name, *spec, *why;
	uint32_t line;
	int cuda_only;
};

struct fresult {
	uint32_t lines;
	const char *skip;  /* a reason: the file was not scanned */
	const char *error; /* it could not be tokenized or parsed */
	struct fcall *calls;
	struct fmethod *methods;
	struct fmethod *nots; /* method calls on receivers that are not tensors */
	struct ffinding *findings;
	struct fdep *deps;
	size_t ncalls, nmethods, nnots, nfindings, ndeps;
	mt_arena *arena;
};

struct job {
	const mt_gitentry *entry;
	enum file_kind kind;
	int manifest; /* also a dependency manifest (setup.py is both) */
	char *cached;   /* the per-file value for the cache (compact JSON) */
	int from_cache; /* `cached` came from the cache */
	int done;
	int settled; /* done, and seen so by the main thread (set under the lock) */
	struct fresult r;
	/* the members of the result's calls, methods and not_tensor arrays
	 * for this file, written by the worker (mt_scan__render_sites) so that
	 * assembling only copies them; empty when not rendered */
	mt_buf sites[3];
	int rendered;
};

/* A fresh scan's body (mt_scan_result.parts): these pieces, most of them
 * the workers' rendered call sites, kept as they are instead of copied into
 * one 8 MB string for a large repository; a result from the cache has
 * `body` instead. */
struct mt_scan_parts {
	struct mt_scan_piece {
		const char *p;
		size_t n;
	} *pieces;
	size_t npieces;
	char **keep; /* buffers the pieces point into, freed with the result */
	size_t nkeep;
};

/* A result's body pieces; none for a result read from the cache. */
static inline const struct mt_scan_parts *mt_scan__parts_of(const mt_scan_result *r)
{
	static const struct mt_scan_parts none;
	return r->parts ? r->parts : &none;
}

/* Writes the members of the calls, methods and not_tensor arrays for job's
 * result into sites[0..2] (appending). Thread-safe for distinct jobs. */
void mt_scan__render_sites(mt_buf sites[3], const struct job *job);

/* Assembling a result: the summary is built job by job, in job order, as
 * the jobs settle (the main thread does it while the workers run), then the
 * body's pieces and the summary text.
 *   begin: the listing's skipped files and path findings;
 *   job:   one settled job's result (call in job order);
 *   end:   out's summary, its figures (files_scanned, calls, findings) and
 *          body pieces; the jobs' rendered sites move to out; frees `a`
 *          (as _free does on any other path). */
typedef struct mt_scan_asm mt_scan_asm;
mt_scan_asm *mt_scan__asm_begin(const mt_gitlisting *l, const mt_rules *rules);
void mt_scan__asm_job(mt_scan_asm *a, const struct job *job);
int mt_scan__asm_end(mt_scan_asm *a, mt_scan_result *out, struct job *jobs, size_t njobs);
void mt_scan__asm_free(mt_scan_asm *a);

/* The limit of mt_scan_options.paths (scan_paths.c). _norm: the paths as
 * the listing writes them (*out NULL, *n 0 when there is no limit: none
 * given, or "."); MT_EUSAGE for one that leaves the repository at root.
 * _filter: drops the listing's files outside them, *missing (caller frees)
 * the paths with nothing under them. _members: `"paths":[..],
 * "paths_missing":[..]` for the summary (caller frees). _hash: for the
 * whole-result cache key. */
int mt_scan__paths_norm(char ***out, size_t *n, const char *const *in, size_t nin,
			const char *root);
int mt_scan__paths_filter(mt_gitlisting *l, char **paths, size_t n, char ***missing,
			  size_t *nmissing);
char *mt_scan__paths_members(char **paths, size_t n, char **missing, size_t nmissing);
uint64_t mt_scan__paths_hash(char **paths, size_t n);

/* Raw members appended to the summary (a copy is kept). */
void mt_scan__asm_extra(mt_scan_asm *a, const char *members);

#endif
