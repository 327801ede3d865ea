/* Tensor files by content, mapped; sets of them by directory. */
#include "tensorfile.h"

#include "error.h"
#include "safetensors.h"
#include "torchsave.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_tensor_name(const void *a, const void *b)
{
	return strcmp(((const mt_tensor *)a)->name, ((const mt_tensor *)b)->name);
}

struct mt_tensor_file {
	char *path;
	mt_torchsave *torchsave; /* a torch.save file's reader, which owns the data */
	void *map;
	size_t size;
	mt_tensor *tensors;
	size_t count;
};

/* THE torch.save BRANCH: a zip archive (torch >= 1.6) or a bare pickle
 * (older), read by checks/torchsave.c; its tensors are copied by value (their
 * data stays in its mapping, so f keeps it open) and sorted by name. */
static int torchsave_open(mt_tensor_file *f)
{
	int error;

	munmap(f->map, f->size); /* torchsave maps the file itself */
	f->map = NULL;
	if ((error = mt_torchsave_open(&f->torchsave, f->path)) < 0)
		return error;
	f->count = mt_torchsave_count(f->torchsave);
	if (!(f->tensors = calloc(f->count ? f->count : 1, sizeof(*f->tensors))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < f->count; i++) {
		f->tensors[i] = *mt_torchsave_at(f->torchsave, i);
		f->tensors[i].name = mt_strdup(f->tensors[i].name);
	}
	qsort(f->tensors, f->count, sizeof(*f->tensors), cmp_tensor_name);
	for (size_t i = 1; i < f->count; i++)
		if (strcmp(f->tensors[i].name, f->tensors[i - 1].name) == 0)
			return mt_error_set(MT_EINVALID, "%s: two tensors are named '%s'", f->path,
			                    f->tensors[i].name);
	return 0;
}

/* A safetensors file starts with a sane header length and '{'; checked
 * first because that length's low byte may be anything, 0x80 and 'P'
 * included. */
static int looks_safetensors(const unsigned char *p, size_t size)
{
	uint64_t n = 0;
	if (size < 9)
		return 0;
	for (int i = 7; i >= 0; i--)
		n = n << 8 | p[i];
	return n <= size - 8 && p[8] == '{';
}

static int looks_torchsave(const unsigned char *p, size_t size)
{
	if (size >= 4 && memcmp(p, "PK\x03\x04", 4) == 0)
		return 1;
	return size >= 2 && p[0] == 0x80 && p[1] >= 2 && p[1] <= 5; /* pickle PROTO */
}

static int map_file(mt_tensor_file *f)
{
	struct stat st;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC), error = 0;

	if (fd < 0)
		return mt_error_set(errno == ENOENT ? MT_ENOTFOUND : MT_EIO, "%s: %s", f->path,
		                    strerror(errno));
	if (fstat(fd, &st) < 0) {
		error = mt_error_set(MT_EIO, "%s: %s", f->path, strerror(errno));
	} else if (S_ISDIR(st.st_mode)) {
		error = mt_error_set(MT_EINVALID, "%s: a directory, not a tensor file", f->path);
	} else if (st.st_size == 0) {
		error = mt_error_set(MT_EINVALID, "%s: empty file, not a tensor file", f->path);
	} else {
		f->size = (size_t)st.st_size;
		f->map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (f->map == MAP_FAILED) {
			f->map = NULL;
			error = mt_error_set(MT_EIO, "%s: mmap: %s", f->path, strerror(errno));
		} else {
			madvise(f->map, f->size, MADV_SEQUENTIAL);
		}
	}
	close(fd);
	return error;
}

int mt_tensor_file_open(mt_tensor_file **out, const char *path)
{
	mt_tensor_file *f = calloc(1, sizeof(*f));
	int error;

	*out = NULL;
	if (!f)
		return mt_error_set(MT_EIO, "out of memory");
	f->path = mt_strdup(path);
	if ((error = map_file(f)) < 0)
		goto cleanup;
	if (!looks_safetensors(f->map, f->size) && looks_torchsave(f->map, f->size))
		error = torchsave_open(f);
	else
		error = mt_safetensors_parse(&f->tensors, &f->count, f->map, f->size, f->path);
cleanup:
	if (error < 0)
		mt_tensor_file_free(f);
	else
		*out = f;
	return error;
}

size_t mt_tensor_file_count(const mt_tensor_file *f)
{
	return f->count;
}

const mt_tensor *mt_tensor_file_at(const mt_tensor_file *f, size_t i)
{
	return i < f->count ? &f->tensors[i] : NULL;
}

static int cmp_name_key(const void *key, const void *t)
{
	return strcmp(key, ((const mt_tensor *)t)->name);
}

const mt_tensor *mt_tensor_file_find(const mt_tensor_file *f, const char *name)
{
	return bsearch(name, f->tensors, f->count, sizeof(mt_tensor), cmp_name_key);
}

const char *mt_tensor_file_path(const mt_tensor_file *f)
{
	return f->path;
}

size_t mt_tensor_file_global_count(const mt_tensor_file *f)
{
	return mt_torchsave_global_count(f->torchsave);
}

const char *mt_tensor_file_global_at(const mt_tensor_file *f, size_t i, int *called)
{
	return mt_torchsave_global_at(f->torchsave, i, called);
}

void mt_tensor_file_free(mt_tensor_file *f)
{
	if (!f)
		return;
	mt_safetensors_free(f->tensors, f->count);
	mt_torchsave_free(f->torchsave);
	if (f->map)
		munmap(f->map, f->size);
	free(f->path);
	free(f);
}

/* --- sets ------------------------------------------------------------------ */

struct entry {
	const mt_tensor *t;
	size_t file;
};

struct mt_tensor_set {
	mt_tensor_file **files;
	size_t nfiles;
	struct entry *entries;
	size_t count;
	char *label; /* a wrapped set's name for its tensors' "file" */
};

/* A tensor file by its name: *.safetensors, or torch.save's *.pt, *.pth. */
static int is_tensor_file_name(const struct dirent *d)
{
	static const char *const exts[] = {".safetensors", ".pt", ".pth"};
	size_t n = strlen(d->d_name);
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t e = strlen(exts[i]);
		if (n > e && strcmp(d->d_name + n - e, exts[i]) == 0)
			return 1;
	}
	return 0;
}

static int cmp_dirent(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Opens every tensor file of dir (*.safetensors, *.pt, *.pth) into s->files. */
static int open_dir(mt_tensor_set *s, const char *dir)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, is_tensor_file_name, cmp_dirent), error = 0;

	if (n < 0)
		return mt_error_set(MT_EIO, "%s: %s", dir, strerror(errno));
	if (n == 0)
		error =
		    mt_error_set(MT_EINVALID, "%s: no tensor files (*.safetensors, *.pt, *.pth) in this directory", dir);
	else if (!(s->files = calloc((size_t)n, sizeof(*s->files))))
		error = mt_error_set(MT_EIO, "out of memory");
	for (int i = 0; i < n; i++) {
		if (error == 0) {
			char *p = mt_path_join(dir, names[i]->d_name);
			error = mt_tensor_file_open(&s->files[s->nfiles], p);
			s->nfiles += error == 0;
			free(p);
		}
		free(names[i]);
	}
	free(names);
	return error;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->t->name, ((const struct entry *)b)->t->name);
}

/* Gathers every file's tensors in name order; a name twice is an error. */
static int index_set(mt_tensor_set *s, const char *path)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < s->nfiles; i++)
		total += s->files[i]->count;
	if (!(s->entries = calloc(total ? total : 1, sizeof(*s->entries))))
		return mt_error_set(MT_EIO, "out of memory");
	for (size_t i = 0; i < s->nfiles; i++)
		for (size_t j = 0; j < s->files[i]->count; j++)
			s->entries[k++] = (struct entry){&s->files[i]->tensors[j], i};
	s->count = total;
	qsort(s->entries, total, sizeof(*s->entries), cmp_entry);
	for (size_t i = 1; i < total; i++)
		if (strcmp(s->entries[i].t->name, s->entries[i - 1].t->name) == 0)
			return mt_error_set(MT_EINVALID, "%s: tensor '%s' is in both %s and %s",
			                    path, s->entries[i].t->name,
			                    s->files[s->entries[i - 1].file]->path,
			                    s->files[s->entries[i].file]->path);
	return 0;
}

int mt_tensor_set_open(mt_tensor_set **out, const char *path)
{
	mt_tensor_set *s = calloc(1, sizeof(*s));
	int error;

	*out = NULL;
	if (!s)
		return mt_error_set(MT_EIO, "out of memory");
	if (mt_path_is_dir(path)) {
		error = open_dir(s, path);
	} else if (!(s->files = calloc(1, sizeof(*s->files)))) {
		error = mt_error_set(MT_EIO, "out of memory");
	} else {
		error = mt_tensor_file_open(&s->files[0], path);
		s->nfiles = error == 0;
	}
	if (error == 0)
		error = index_set(s, path);
	if (error < 0)
		mt_tensor_set_free(s);
	else
		*out = s;
	return error;
}

size_t mt_tensor_set_count(const mt_tensor_set *s)
{
	return s->count;
}

const mt_tensor *mt_tensor_set_at(const mt_tensor_set *s, size_t i)
{
	return i < s->count ? s->entries[i].t : NULL;
}

const char *mt_tensor_set_file(const mt_tensor_set *s, size_t i)
{
	if (i >= s->count)
		return NULL;
	return s->nfiles ? s->files[s->entries[i].file]->path : s->label;
}

int mt_tensor_set_wrap(mt_tensor_set **out, const mt_tensor *ts, size_t n, const char *label)
{
	mt_tensor_set *s = calloc(1, sizeof(*s));
	int error = 0;

	*out = NULL;
	if (!s || !(s->entries = calloc(n ? n : 1, sizeof(*s->entries))) ||
	    !(s->label = mt_strdup(label))) {
		mt_tensor_set_free(s);
		return mt_error_set(MT_EIO, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		s->entries[i] = (struct entry){&ts[i], 0};
	s->count = n;
	qsort(s->entries, n, sizeof(*s->entries), cmp_entry);
	for (size_t i = 1; i < n && error == 0; i++)
		if (strcmp(s->entries[i].t->name, s->entries[i - 1].t->name) == 0)
			error = mt_error_set(MT_EINVALID, "%s: two tensors named '%s'", label,
					     s->entries[i].t->name);
	if (error < 0)
		mt_tensor_set_free(s);
	else
		*out = s;
	return error;
}

static int cmp_entry_key(const void *key, const void *e)
{
	return strcmp(key, ((const struct entry *)e)->t->name);
}

const mt_tensor *mt_tensor_set_find(const mt_tensor_set *s, const char *name)
{
	const struct entry *e =
	    bsearch(name, s->entries, s->count, sizeof(*s->entries), cmp_entry_key);
	return e ? e->t : NULL;
}

size_t mt_tensor_set_file_count(const mt_tensor_set *s)
{
	return s->nfiles;
}

const mt_tensor_file *mt_tensor_set_file_at(const mt_tensor_set *s, size_t i)
{
	return i < s->nfiles ? s->files[i] : NULL;
}

void mt_tensor_set_free(mt_tensor_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		mt_tensor_file_free(s->files[i]);
	free(s->files);
	free(s->entries);
	free(s->label);
	free(s);
}
