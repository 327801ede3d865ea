/* Helpers shared by the unit tests: scratch directories and fixture repos
 * made by the test itself. */
#ifndef MT_TEST_FIXTURES_H
#define MT_TEST_FIXTURES_H

/* Creates a fresh empty directory under $TMPDIR (or /tmp); caller frees. */
char *mt_fx_tmpdir(const char *tag);

/* rm -rf of a directory made by mt_fx_tmpdir(). */
void mt_fx_rmtree(const char *dir);

/* A cmocka teardown for a state that is an mt_fx_tmpdir(): removed, freed. */
int mt_fx_teardown_tmpdir(void **state);

/* Writes text to dir/name (creating parent directories). */
void mt_fx_write(const char *dir, const char *name, const char *text);

/* Writes the file at `src` (relative to the source tree: a fixture under
 * tests/data) to dir/name. */
void mt_fx_copy(const char *dir, const char *name, const char *src);

/* Commits `files` (NULL-terminated, relative to dir) on HEAD, making dir a
 * git repository first when it is not one; the commit's parent is HEAD's
 * when there is one. Aborts the test on a libgit2 error. */
void mt_fx_commit(const char *dir, const char *const *files);

#endif
