/* Reading objects straight from a repository's pack files, for the cold
 * scan: git's pack format (.idx version 2, .pack versions 2 and 3, OFS and
 * REF deltas) inflated with libdeflate, into buffers that are reused from
 * one object to the next.
 *
 * libgit2 reads the same objects through zlib's streaming inflate into a
 * fresh allocation per object; a cold scan of a large repository spent a
 * third of its time there. This reader is an accelerator, not a second
 * source of truth: anything it does not know (a loose object, an
 * alternate, a pack written after it was opened) or does not trust (any
 * offset, size or delta instruction out of bounds, a checksum mismatch, a
 * chain deeper than git allows) makes it answer "not here", and the caller
 * asks libgit2, whose errors then name the problem. No object id is
 * re-hashed: libgit2 is configured the same way for the scan
 * (GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION off).
 *
 * One mt_gitpack per thread: it holds its own buffers and delta-base cache;
 * the mappings are shared (mt_gitpack_share).
 * MTRIAL_GITPACK=0 in the environment turns it off (for benchmarks and
 * tests comparing both paths). */
#ifndef MT_GITPACK_H
#define MT_GITPACK_H

#include <stddef.h>
#include <stdint.h>

typedef struct mt_gitpack mt_gitpack;

/* Maps the .idx/.pack pairs under objects_dir/pack. Never fails for want of
 * packs: a repository without any gives a reader that finds nothing. NULL
 * only when the reader is turned off or memory runs out. */
mt_gitpack *mt_gitpack_open(const char *objects_dir);
void mt_gitpack_free(mt_gitpack *p);

/* Another reader (for another thread) of the same mapped packs. NULL for
 * NULL. */
mt_gitpack *mt_gitpack_share(const mt_gitpack *p);

enum { MT_GITPACK_COMMIT = 1, MT_GITPACK_TREE = 2, MT_GITPACK_BLOB = 3, MT_GITPACK_TAG = 4 };

/* Looks up a 20-byte object id. Returns 1 with *type and *size set when the
 * object is in a pack; 0 when it is not (or the pack is not to be trusted
 * for it: ask libgit2). When the object is larger than max_size, returns 1
 * with *data NULL and *size the object's size, without inflating it.
 * Otherwise *data is a buffer the caller owns until it hands it back with
 * mt_gitpack_release() (or frees it with free()); it is not NUL-terminated
 * but has one spare byte after *size. */
int mt_gitpack_read(mt_gitpack *p, const unsigned char id[20], int *type, char **data,
		    size_t *size, uint64_t max_size);

/* 1 when the object is in one of the packs (an index lookup, nothing
 * inflated), 0 otherwise. */
int mt_gitpack_has(mt_gitpack *p, const unsigned char id[20]);

/* Gives a buffer from mt_gitpack_read() back for reuse (or frees it). */
void mt_gitpack_release(mt_gitpack *p, char *data);

#endif
