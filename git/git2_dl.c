/* libgit2, loaded on first use: see git2_int.h. */
#define MT_GIT2_DL_IMPL
#include "git2_int.h"
#include "error.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The soname of the libgit2 the build found (CMakeLists.txt reads it from
 * the library), else the one Debian 12's libgit2-dev links against. */
#ifndef MT_LIBGIT2_SONAME
#define MT_LIBGIT2_SONAME "libgit2.so.1.5"
#endif

struct mt_git2_api mt_git2;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char why[512];
static git_error load_error = {why, 0};

static void load(void)
{
	/* MTRIAL_LIBGIT2_LIBRARY: another libgit2 of the same ABI (and the
	 * tests' way to see what a machine without one gets) */
	const char *name = getenv("MTRIAL_LIBGIT2_LIBRARY");
	void *h;
	struct mt_git2_api a;
	const char *missing = NULL;

	if (!name || !*name)
		name = MT_LIBGIT2_SONAME;
	h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(why, sizeof(why), "cannot load libgit2 (%s): %s", name, dlerror());
		return;
	}
#define MT_GIT2_SYM(fn)                                    \
	do {                                               \
		*(void **)&a.fn = dlsym(h, #fn);           \
		if (!a.fn && !missing)                     \
			missing = #fn;                     \
	} while (0);
	MT_GIT2_FUNCTIONS(MT_GIT2_SYM)
#undef MT_GIT2_SYM
	if (missing) {
		snprintf(why, sizeof(why), "%s lacks %s (mtrial was built against libgit2 %s)",
			 name, missing, LIBGIT2_VERSION);
		dlclose(h);
		return;
	}
	mt_git2 = a; /* published by pthread_once */
	loaded = 1;
}

int mt_git2_init(void)
{
	pthread_once(&once, load);
	if (!loaded)
		return mt_error_set(MT_EIO, "%s", why);
	return mt_git2.git_libgit2_init();
}

int mt_git2_shutdown(void)
{
	return loaded ? mt_git2.git_libgit2_shutdown() : 0;
}

const git_error *mt_git2_error_last(void)
{
	return loaded ? mt_git2.git_error_last() : &load_error;
}
