#define MT_CURL_DL_IMPL
#include "curl_dl.h"
#include "error.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* The soname Debian's libcurl4-openssl-dev links against (libcurl ABI 4). */
#define CURL_SONAME "libcurl.so.4"

struct mt_curl_api mt_curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[512];

static void load(void)
{
	/* MTRIAL_CURL_LIBRARY: another libcurl (and the tests' way to see what a
	 * machine without one gets) */
	const char *name = getenv("MTRIAL_CURL_LIBRARY");
	void *h = dlopen(name && *name ? name : CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	struct mt_curl_api a;
	const char *missing = NULL;

	if (!name || !*name)
		name = CURL_SONAME;
	if (!h) {
		snprintf(why, sizeof(why), "cannot load libcurl (%s): %s", name, dlerror());
		return;
	}
#define SYM(field, name)                                   \
	do {                                               \
		*(void **)&a.field = dlsym(h, name);       \
		if (!a.field && !missing)                  \
			missing = name;                    \
	} while (0)
	SYM(url, "curl_url");
	SYM(url_set, "curl_url_set");
	SYM(url_get, "curl_url_get");
	SYM(url_strerror, "curl_url_strerror");
	SYM(url_cleanup, "curl_url_cleanup");
	SYM(free, "curl_free");
	SYM(global_init, "curl_global_init");
	SYM(global_cleanup, "curl_global_cleanup");
	SYM(easy_init, "curl_easy_init");
	SYM(easy_cleanup, "curl_easy_cleanup");
	SYM(easy_setopt, "curl_easy_setopt");
	SYM(easy_getinfo, "curl_easy_getinfo");
	SYM(easy_perform, "curl_easy_perform");
	SYM(easy_strerror, "curl_easy_strerror");
	SYM(easy_header, "curl_easy_header");
	SYM(slist_append, "curl_slist_append");
	SYM(slist_free_all, "curl_slist_free_all");
	SYM(version_info, "curl_version_info");
#undef SYM
	if (missing) { /* older than 7.84 (curl_easy_header) */
		snprintf(why, sizeof(why), "%s lacks %s (libcurl 7.84 or later is needed)", name,
			 missing);
		dlclose(h);
		return;
	}
	mt_curl = a; /* published by pthread_once */
}

int mt_curl_load(void)
{
	pthread_once(&once, load);
	return mt_curl.easy_init ? 0 : mt_error_set(MT_EIO, "%s", why);
}
