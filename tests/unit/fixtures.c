#include "fixtures.h"
#include "util.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *mt_fx_tmpdir(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char tmpl[4096];

	snprintf(tmpl, sizeof(tmpl), "%s/mtrial-%s-XXXXXX", base && *base ? base : "/tmp", tag);
	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		abort();
	}
	return mt_strdup(tmpl);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void mt_fx_rmtree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void mt_fx_write(const char *dir, const char *name, const char *text)
{
	char *path = mt_path_join(dir, name);
	char *slash = strrchr(path, '/');
	FILE *f;

	*slash = '\0';
	mt_mkdir_p(path);
	*slash = '/';
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		abort();
	}
	fputs(text, f);
	fclose(f);
	free(path);
}
