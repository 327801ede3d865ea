#include "mt_torch.h"
#include "abi.h"
#include "error.h"
#include "util.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MODULE_NAME "libmtrial_torch.so"

static struct {
	void *handle;
	char path[PATH_MAX];
	int (*abi)(void);
	int (*version)(char *, size_t, char *, size_t);
	int (*operator_count)(size_t *, char *, size_t);
	int (*torchscript_ops)(const char *, char **, char *, size_t);
	int (*registry)(char **, char *, size_t);
	int (*run_model)(const char *, const mtt_tensor *, size_t, const char *, mtt_tensor **,
			 size_t *, char *, size_t);
} shim;

static pthread_mutex_t shim_lock = PTHREAD_MUTEX_INITIALIZER;

/* Candidate paths, in order, as heap strings; returns how many. */
static int candidates(char **out, int max)
{
	char exe[PATH_MAX];
	ssize_t n;
	int k = 0;
	const char *env = getenv("MTRIAL_TORCH_MODULE");
	mt_buf b = MT_BUF_INIT;

	if (env && *env && k < max)
		out[k++] = mt_strdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		mt_buf_printf(&b, "%s/%s", exe, MODULE_NAME);
		if (k < max)
			out[k++] = mt_buf_detach(&b);
		mt_buf_printf(&b, "%s/../lib/mtrial/%s", exe, MODULE_NAME);
		if (k < max)
			out[k++] = mt_buf_detach(&b);
		mt_buf_dispose(&b);
	}
#ifdef MT_TORCH_BUILD_MODULE
	if (k < max)
		out[k++] = mt_strdup(MT_TORCH_BUILD_MODULE);
#endif
	return k;
}

static int bind_symbols(void *h)
{
	*(void **)&shim.abi = dlsym(h, "mtt_abi");
	*(void **)&shim.version = dlsym(h, "mtt_version");
	*(void **)&shim.operator_count = dlsym(h, "mtt_operator_count");
	*(void **)&shim.torchscript_ops = dlsym(h, "mtt_torchscript_ops");
	*(void **)&shim.registry = dlsym(h, "mtt_registry");
	*(void **)&shim.run_model = dlsym(h, "mtt_run_model");
	if (!shim.abi || !shim.version || !shim.operator_count || !shim.torchscript_ops ||
	    !shim.registry || !shim.run_model)
		return mt_error_set(MT_EIO, "%s: missing symbol: %s", shim.path, dlerror());
	if (shim.abi() != MTT_ABI)
		return mt_error_set(MT_EIO, "%s: shim ABI %d, expected %d", shim.path,
				    shim.abi(), MTT_ABI);
	return 0;
}

static int try_load(const char *path, mt_buf *tried)
{
	void *h;
	int error;

	if (access(path, R_OK) != 0) {
		mt_buf_printf(tried, "%s%s (absent)", tried->len ? "; " : "", path);
		return MT_ENOTFOUND;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		mt_buf_printf(tried, "%s%s", tried->len ? "; " : "", dlerror());
		return MT_ENOTFOUND;
	}
	snprintf(shim.path, sizeof(shim.path), "%s", path);
	if ((error = bind_symbols(h)) < 0) {
		dlclose(h);
		memset(&shim, 0, sizeof(shim));
		return error;
	}
	shim.handle = h;
	return 0;
}

static int load_locked(void)
{
	char *paths[4];
	int n = candidates(paths, 4), error = MT_ENOTFOUND;
	mt_buf tried = MT_BUF_INIT;

	for (int i = 0; i < n; i++) {
		if (error == MT_ENOTFOUND)
			error = try_load(paths[i], &tried);
		free(paths[i]);
	}
	if (error == MT_ENOTFOUND)
		mt_error_set(MT_ENOTFOUND, "libtorch shim not loaded; tried: %s",
			     mt_buf_cstr(&tried));
	mt_buf_dispose(&tried);
	return error;
}

int mt_torch_load(void)
{
	int error = 0;
	pthread_mutex_lock(&shim_lock);
	if (!shim.handle)
		error = load_locked();
	pthread_mutex_unlock(&shim_lock);
	return error;
}

int mt_torch_loaded(void)
{
	return shim.handle != NULL;
}

const char *mt_torch_module_path(void)
{
	return shim.handle ? shim.path : NULL;
}

int mt_torch_version(char *buf, size_t size)
{
	char err[1024] = "";
	int error = mt_torch_load();
	if (error < 0)
		return error;
	if (shim.version(buf, size, err, sizeof(err)) != 0)
		return mt_error_set(MT_EIO, "libtorch: %s", err);
	return 0;
}

int mt_torch_operator_count(size_t *out)
{
	char err[1024] = "";
	int error = mt_torch_load();
	if (error < 0)
		return error;
	if (shim.operator_count(out, err, sizeof(err)) != 0)
		return mt_error_set(MT_EIO, "libtorch: %s", err);
	return 0;
}

int mt_torch_script_ops(const char *path, char **json)
{
	char err[2048] = "";
	int error = mt_torch_load();
	if (error < 0)
		return error;
	if (shim.torchscript_ops(path, json, err, sizeof(err)) != 0)
		return mt_error_set(MT_EINVALID, "%s: libtorch could not load it as TorchScript: %s",
				    path, err);
	return 0;
}

int mt_torch_registry(char **json)
{
	char err[1024] = "";
	int error = mt_torch_load();
	if (error < 0)
		return error;
	if (shim.registry(json, err, sizeof(err)) != 0)
		return mt_error_set(MT_EIO, "libtorch: %s", err);
	return 0;
}

/* The last non-empty line of a TorchScript error (its first lines are the
 * interpreter's traceback; the last says what failed). */
static const char *last_line(char *text)
{
	size_t n = strlen(text);
	while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
		text[--n] = '\0';
	for (size_t i = n; i-- > 0;)
		if (text[i] == '\n')
			return text + i + 1;
	return text;
}

int mt_torch_run_model(const char *path, const mtt_tensor *inputs, size_t nin, const char *dtype,
		       mtt_tensor **out, size_t *n)
{
	char err[2048] = "";
	int error = mt_torch_load();
	*out = NULL;
	*n = 0;
	if (error < 0)
		return error;
	if (shim.run_model(path, inputs, nin, dtype, out, n, err, sizeof(err)) != 0)
		return mt_error_set(MT_EINVALID, "%s: running forward in %s failed: %s", path, dtype,
				    last_line(err));
	return 0;
}

void mt_torch_tensors_free(mtt_tensor *arr, size_t n)
{
	for (size_t i = 0; arr && i < n; i++) {
		free(arr[i].name);
		free(arr[i].data);
	}
	free(arr);
}
