/* Proportional shares of a whole number of cells: how wide each part of a
 * bar is, in the wizard's columns and in the report's SVG pixels alike, so
 * that both draw the same counts the same way. */
#ifndef MT_REPORT_SHARE_H
#define MT_REPORT_SHARE_H

#include <stddef.h>

/* Splits `width` cells among n parts in proportion to counts[] (a count
 * that is not finite or <= 0 is 0) into cells[]; the cells add up to width
 * when any count is positive, else all are 0. Each part gets the whole part
 * of its exact share and rounding only ever adds to it (the cells left go
 * to the largest remainders); every part with a positive count gets at
 * least one cell while the width allows. When those single cells cost more
 * than rounding left over, they are taken from the widest parts, never from
 * part `keep` (-1: none), which keeps at least its whole share: say, the
 * ops whose status is unknown, never to be made to look small. */
void mt_share_cells(const double *counts, size_t n, int width, int keep, int *cells);

#endif
