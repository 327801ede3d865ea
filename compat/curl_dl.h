/* libcurl, loaded on first use (dlopen), like libtorch: linked in, its TLS,
 * Kerberos, LDAP, IDN and HTTP/2 libraries (some twenty shared objects) were
 * mapped and relocated at the start of every command, though only `tables
 * update` and `doctor` use it.
 *
 * Include this instead of <curl/curl.h>: the curl_* names used by mtrial
 * then call through the table mt_curl_load() fills. */
#ifndef MT_CURL_DL_H
#define MT_CURL_DL_H

#define CURL_DISABLE_TYPECHECK /* curl_easy_setopt must stay a plain name */
#include <curl/curl.h>
#include <stddef.h>

struct mt_curl_api {
	CURLU *(*url)(void);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
	CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
	const char *(*url_strerror)(CURLUcode);
	void (*url_cleanup)(CURLU *);
	void (*free)(void *);
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	CURLcode (*easy_perform)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	CURLHcode (*easy_header)(CURL *, const char *, size_t, unsigned int, int,
				 struct curl_header **);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	curl_version_info_data *(*version_info)(CURLversion);
};

extern struct mt_curl_api mt_curl;

/* Loads libcurl once (thread-safe). 0, or MT_EIO with a message naming the
 * library and dlopen's reason. */
int mt_curl_load(void);

#ifndef MT_CURL_DL_IMPL
/* curl.h makes these two function-like macros that check the argument
 * count; the calls then go through the table like the others */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_url mt_curl.url
#define curl_url_set mt_curl.url_set
#define curl_url_get mt_curl.url_get
#define curl_url_strerror mt_curl.url_strerror
#define curl_url_cleanup mt_curl.url_cleanup
#define curl_free mt_curl.free
#define curl_global_init mt_curl.global_init
#define curl_global_cleanup mt_curl.global_cleanup
#define curl_easy_init mt_curl.easy_init
#define curl_easy_cleanup mt_curl.easy_cleanup
#define curl_easy_setopt mt_curl.easy_setopt
#define curl_easy_getinfo mt_curl.easy_getinfo
#define curl_easy_perform mt_curl.easy_perform
#define curl_easy_strerror mt_curl.easy_strerror
#define curl_easy_header mt_curl.easy_header
#define curl_slist_append mt_curl.slist_append
#define curl_slist_free_all mt_curl.slist_free_all
#define curl_version_info mt_curl.version_info
#endif

#endif
