/* torch.save files read without libtorch: the zip archive torch.save writes
 * (PyTorch 1.6 and later, 2.x included) with its pickle (data.pkl) and one
 * stored entry per storage (data/N). The file is mapped; a contiguous
 * tensor's data points into the mapping, a strided view is gathered into a
 * copy. A tensor, or dicts (state_dicts: OrderedDict), lists and tuples of
 * tensors, nested: names are joined with "." ("layers.0.weight"), list
 * items by index, a lone tensor is "tensor".
 *
 * Why not libtorch: torch::pickle_load in libtorch 1.13 turns
 * collections.OrderedDict into None, so no state_dict can be read through
 * it; and reading dumps this way costs no libtorch start-up.
 *
 * The pickle machine knows the opcodes of protocols 2 to 5 that torch.save
 * writes and the globals a tensor needs (_rebuild_tensor_v2,
 * _rebuild_parameter, the typed storages, OrderedDict); any other object is
 * kept as an opaque value, and tensors inside it are not found; the
 * globals beyond those are listed (mt_torchsave_global_at), because
 * torch.load would run them.
 *
 * Allocations follow the input: the memo is bounded by data.pkl's length,
 * strided views gathered into copies by the file's (gather_limit()). */
#ifndef MT_TORCHSAVE_H
#define MT_TORCHSAVE_H

#include <stddef.h>
#include "tensor.h"

typedef struct mt_torchsave mt_torchsave;

/* Reads the file. MT_EINVALID naming the file and what is wrong (not a zip,
 * a legacy pickle file, a truncated archive, a storage past the end of its
 * entry, an opcode it does not know); MT_ENOTFOUND when absent. */
int mt_torchsave_open(mt_torchsave **out, const char *path);

/* The same from len bytes already in memory (borrowed: they must outlive
 * *out); `path` names them in messages. */
int mt_torchsave_parse(mt_torchsave **out, const unsigned char *buf, uint64_t len,
		       const char *path);

size_t mt_torchsave_count(const mt_torchsave *f);
/* The i-th tensor in the order the file holds them; NULL past the end. */
const mt_tensor *mt_torchsave_at(const mt_torchsave *f, size_t i);
/* The globals the pickle names beyond what tensors need (os.system,
 * __main__.Net, numpy's reconstructors), each once, in the order met; the
 * first MT_TORCHSAVE_GLOBALS_MAX of them.
 * torch.load with weights_only=False imports each and calls those for which
 * *called is set (a REDUCE or NEWOBJ); mtrial never runs the pickle. The
 * name ("module.name") is borrowed: it lives as long as f. NULL past the
 * end; `called` may be NULL. */
#define MT_TORCHSAVE_GLOBALS_MAX 100
size_t mt_torchsave_global_count(const mt_torchsave *f);
const char *mt_torchsave_global_at(const mt_torchsave *f, size_t i, int *called);

void mt_torchsave_free(mt_torchsave *f);

#endif
