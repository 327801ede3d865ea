/* Templates compiled into the binary (generated from templates/ at build
 * time by cmake/embed.cmake). */
#ifndef MT_REPORT_EMBEDDED_H
#define MT_REPORT_EMBEDDED_H

struct mt_embedded {
	const char *name;
	const char *text;
};

/* Terminated by {NULL, NULL}. */
extern const struct mt_embedded mt_embedded_templates[];

#endif
