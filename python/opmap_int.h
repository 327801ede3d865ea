/* Private to python/: the operator registry as tools/gen_aten_registry.cc
 * generates it (aten_registry.c), read through opmap.h's mt_aten_*(). The
 * strings are offsets into one array, not pointers: a pointer table would
 * be thousands of relocations the loader applies, and pages it dirties, at
 * the start of every command, scan or not. */
#ifndef MT_OPMAP_INT_H
#define MT_OPMAP_INT_H

#include "opmap.h"

#include <stdint.h>

typedef struct {
	uint32_t name, overload, schema; /* offsets into mt_aten_strings */
	uint8_t self_tensor, method;     /* as mt_aten_op's */
} mt_aten_rec;

extern const char mt_aten_strings[];
extern const mt_aten_rec mt_aten_recs[]; /* sorted by (name, overload) */
extern const size_t mt_aten_nops;
extern const char mt_aten_torch_version[];  /* "1.13.0" */
extern const char mt_aten_method_source[]; /* how `method` was decided */

#endif
