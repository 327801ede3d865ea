#include "mt_torch.h"
#include "abi.h"
#include "error.h"
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

/* libtorch's version as the child that loaded an archive reported it, for
 * mt_torch_version without loading libtorch here too. */
static char child_version[64];

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
	int error;

	if (!mt_torch_loaded() && child_version[0]) { /* a child loaded it for an archive */
		snprintf(buf, size, "%s", child_version);
		return 0;
	}
	error = mt_torch_load();
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

/* How long a child may take to load an archive. */
#define SCRIPT_CHILD_SECONDS 600

/* The child: loads the shim and the archive, writes "O" VERSION "\n" JSON or
 * "E" MESSAGE to fd, and exits without running the parent's atexit work. */
static void script_ops_child(const char *path, int fd)
{
	char err[2048] = "", version[64] = "";
	char *json = NULL;

	if (mt_torch_load() < 0) {
		(void)mt_fd_write_all(fd, "E", 1);
		(void)mt_fd_write_all(fd, mt_error_last(), strlen(mt_error_last()));
		_exit(0);
	}
	if (shim.version(version, sizeof(version), err, sizeof(err)) != 0 ||
	    shim.torchscript_ops(path, &json, err, sizeof(err)) != 0) {
		(void)mt_fd_write_all(fd, "E", 1);
		(void)mt_fd_write_all(fd, err, strlen(err));
		_exit(0);
	}
	(void)mt_fd_write_all(fd, "O", 1);
	(void)mt_fd_write_all(fd, version, strlen(version));
	(void)mt_fd_write_all(fd, "\n", 1);
	(void)mt_fd_write_all(fd, json, strlen(json));
	_exit(0);
}

/* Everything the child writes, until it closes the pipe or the deadline;
 * -1 (with the child killed) past the deadline. */
static int read_child(int fd, pid_t pid, mt_buf *out)
{
	time_t deadline = time(NULL) + SCRIPT_CHILD_SECONDS;
	char chunk[65536];

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int left = (int)(deadline - time(NULL)), r;
		ssize_t n;
		if (left <= 0) {
			kill(pid, SIGKILL);
			return -1;
		}
		r = poll(&p, 1, left * 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue; /* the deadline is checked above */
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		mt_buf_put(out, chunk, (size_t)n);
	}
}

/* The child's answer: *json and the version, or the error it names. */
static int child_answer(const char *path, mt_buf *b, int status, int late, char **json)
{
	char *text = b->ptr ? b->ptr : "", *nl;

	if (late)
		return mt_error_set(MT_EINVALID, "%s: libtorch took longer than %d s to load it as "
				    "TorchScript and was stopped", path, SCRIPT_CHILD_SECONDS);
	if (WIFSIGNALED(status))
		return mt_error_set(MT_EINVALID, "%s: libtorch crashed loading it as TorchScript "
				    "(%s): the archive is malformed or was made to crash a reader; "
				    "nothing was recorded", path, strsignal(WTERMSIG(status)));
	if (text[0] == 'E')
		return mt_error_set(MT_EINVALID, "%s: libtorch could not load it as TorchScript: %s",
				    path, text + 1);
	if (text[0] != 'O' || !(nl = strchr(text, '\n')))
		return mt_error_set(MT_EIO, "%s: the process loading it ended without an answer "
				    "(exit status %d)", path, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	*nl = '\0';
	snprintf(child_version, sizeof(child_version), "%s", text + 1);
	*json = mt_strdup(nl + 1);
	return 0;
}

/* Loading an archive runs libtorch's parser and unpickler on a file from
 * outside: a crash there must not take mtrial down with it (a journal
 * write, a terminal in curses mode). So it runs in a child process, unless
 * libtorch is already loaded here (its thread pools do not survive fork):
 * then in-process, as before. */
int mt_torch_script_ops(const char *path, char **json)
{
	char err[2048] = "";
	mt_buf b = MT_BUF_INIT;
	int fds[2], status = 0, late, error;
	pid_t pid;

	*json = NULL;
	if (mt_torch_loaded()) {
		if (shim.torchscript_ops(path, json, err, sizeof(err)) != 0)
			return mt_error_set(MT_EINVALID,
					    "%s: libtorch could not load it as TorchScript: %s", path, err);
		return 0;
	}
	if (pipe(fds) != 0)
		return mt_error_set(MT_EIO, "pipe: %s", strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(fds[0]), close(fds[1]);
		return mt_error_set(MT_EIO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		script_ops_child(path, fds[1]);
	}
	close(fds[1]);
	late = read_child(fds[0], pid, &b) < 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	error = child_answer(path, &b, status, late, json);
	mt_buf_dispose(&b);
	return error;
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
