/* Files compiled into the binary (generated from templates/ and tables/ at
 * build time by cmake/embed.cmake). */
#ifndef MT_REPORT_EMBEDDED_H
#define MT_REPORT_EMBEDDED_H

struct mt_embedded {
	const char *name;
	const char *text;
};

/* Terminated by {NULL, NULL}. */
extern const struct mt_embedded mt_embedded_templates[];
extern const struct mt_embedded mt_embedded_tables[];
extern const struct mt_embedded mt_embedded_scripts[]; /* probes/optrace.py */

/* The text of `name` (caller frees): from the directory in environment
 * variable `env_dir` when set (MTRIAL_TEMPLATE_DIR, MTRIAL_TABLES_DIR), else
 * from `set` (env_dir may be NULL: always `set`). MT_ENOTFOUND when absent. */
int mt_embedded_load(char **out, const struct mt_embedded *set, const char *env_dir,
		     const char *name);

#endif
