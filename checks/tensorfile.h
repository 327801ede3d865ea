/* Tensor files opened by content: safetensors (mapped with mmap, never
 * copied, so files larger than memory stream through the page cache), and
 * sets of them: every *.safetensors, *.pt and *.pth file of a directory,
 * matched by tensor name; and torch.save files (checks/torchsave.h), told apart by content. */
#ifndef MT_TENSORFILE_H
#define MT_TENSORFILE_H

#include <stddef.h>

#include "tensor.h"

typedef struct mt_tensor_file mt_tensor_file;
typedef struct mt_tensor_set mt_tensor_set;

/* Opens the tensor file at path, its format told by its content. MT_ENOTFOUND
 * when there is no file, MT_EINVALID (naming the file and the field) when it
 * is not one mtrial reads. */
int mt_tensor_file_open(mt_tensor_file **out, const char *path);

/* Number of tensors, and tensor i in name order. Borrowed: lives as long as
 * the file. */
size_t mt_tensor_file_count(const mt_tensor_file *f);
const mt_tensor *mt_tensor_file_at(const mt_tensor_file *f, size_t i);

/* The tensor named `name`, or NULL. Borrowed. */
const mt_tensor *mt_tensor_file_find(const mt_tensor_file *f, const char *name);

/* The path it was opened with. Borrowed. */
const char *mt_tensor_file_path(const mt_tensor_file *f);

/* The globals a torch.save file's pickle names beyond what tensors need,
 * which torch.load(weights_only=False) would import and, when *called, call
 * (mt_torchsave_global_at); none for safetensors. Borrowed: lives as long
 * as f. NULL past the end; `called` may be NULL. */
size_t mt_tensor_file_global_count(const mt_tensor_file *f);
const char *mt_tensor_file_global_at(const mt_tensor_file *f, size_t i, int *called);

void mt_tensor_file_free(mt_tensor_file *f);

/* Opens a set: one tensor file, or every tensor file (*.safetensors, *.pt,
 * *.pth) in a directory
 * (sorted, not recursive). A tensor name found in two of its files is
 * MT_EINVALID naming both; a directory without any is MT_EINVALID. */
int mt_tensor_set_open(mt_tensor_set **out, const char *path);

/* Number of tensors across the set's files, tensor i in name order, and the
 * file it lives in. Borrowed: live as long as the set. */
size_t mt_tensor_set_count(const mt_tensor_set *s);
const mt_tensor *mt_tensor_set_at(const mt_tensor_set *s, size_t i);
const char *mt_tensor_set_file(const mt_tensor_set *s, size_t i);

/* The tensor named `name`, or NULL. Borrowed. */
const mt_tensor *mt_tensor_set_find(const mt_tensor_set *s, const char *name);

/* The set's files (none for a wrapped set), and file i, or NULL. Borrowed:
 * live as long as the set. */
size_t mt_tensor_set_file_count(const mt_tensor_set *s);
const mt_tensor_file *mt_tensor_set_file_at(const mt_tensor_set *s, size_t i);

/* A set over tensors held elsewhere (a model run's outputs): borrowed, they
 * must outlive the set; `label` stands for their file. Two tensors of one
 * name are MT_EINVALID. */
int mt_tensor_set_wrap(mt_tensor_set **out, const mt_tensor *ts, size_t n, const char *label);

void mt_tensor_set_free(mt_tensor_set *s);

#endif
