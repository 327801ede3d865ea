#include "embedded.h"
#include "error.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int mt_embedded_load(char **out, const struct mt_embedded *set, const char *env_dir,
		     const char *name)
{
	const char *dir = env_dir ? getenv(env_dir) : NULL;

	*out = NULL;
	if (dir && *dir) {
		char *path = mt_path_join(dir, name);
		int error = mt_file_read(out, NULL, path);
		free(path);
		return error;
	}
	for (const struct mt_embedded *t = set; t->name; t++) {
		if (strcmp(t->name, name) == 0) {
			*out = mt_strdup(t->text);
			return 0;
		}
	}
	return mt_error_set(MT_ENOTFOUND, "no bundled file named '%s'", name);
}
