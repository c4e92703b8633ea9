/*
 * svg.h — a minimal SVG writer for the CLI's pictures (`shardcheck explain --svg`).
 * Rectangles, lines and escaped text into one file; every write error is kept and
 * reported by svg_close, so a full disk or an unwritable path is an error, not a
 * truncated picture: the file is written beside the target and renamed into place
 * (outfile.h), or removed.  svg_open_inline writes the element into an HTML page instead
 * (the report's pictures).  Tested by conformance/tests/cli_explain.sh (the file parses as
 * XML; an unwritable path exits 2 naming it).
 */
#ifndef SHC_SVG_H
#define SHC_SVG_H
#include <stdio.h>
#include "outfile.h"

typedef struct svg {
    FILE *f;       /* of.f: a temporary file beside the target until svg_close */
    out_file of;
    int err; /* errno of the first failed write, 0 if none */
    int inline_; /* svg_open_inline: written into a caller's stream, nothing to rename */
} svg;

/* Create path and write the header for a width x height picture; -1 with errno on failure. */
int svg_open(svg *s, const char *path, int width, int height);
/* Start a width x height <svg> element inside a document the caller writes to f (an HTML
 * page: no XML declaration, no file of its own; svg_close ends the element, and the
 * caller's stream keeps any write error). */
void svg_open_inline(svg *s, FILE *f, int width, int height);
/* Everything drawn until svg_group_end moved down by dy px (a second picture below the first). */
void svg_group_begin(svg *s, double dy);
void svg_group_end(svg *s);
/* A filled rectangle; stroke may be NULL for none. */
void svg_rect(svg *s, double x, double y, double w, double h, const char *fill, const char *stroke);
/* A line. */
void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *stroke, double width);
/* Text at (x, y) in px, escaped for XML; anchor "start", "middle" or "end". */
void svg_text(svg *s, double x, double y, int size, const char *anchor, const char *fill,
              const char *text);
/* Close the picture (renamed into place); 0, or -1 with errno of the first failed write
 * or the close, and no file left. */
int svg_close(svg *s);
#endif
