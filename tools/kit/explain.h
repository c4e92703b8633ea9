/*
 * explain.h — `shardcheck explain`'s pictures of who holds what, as a library of the CLI:
 * the command (tools/cli/cmd_explain.c) draws a layout given on the command line or a
 * golden case (tools/cli/explain_case.c, with a candidate's answers beside the expected),
 * and the HTML report (cmd_report.c) draws each failure group's smallest case inline from
 * the inputs verify attached to it.  explain_draw.c builds and draws (text and SVG); it
 * calls nothing in tools/cli (the CLI calls it).  Tested by
 * conformance/tests/cli_explain.sh (text, SVG, golden cases, candidates, every error) and
 * report_html.sh (the inline pictures in a browser).
 */
#ifndef SHC_EXPLAIN_H
#define SHC_EXPLAIN_H
#include <stdio.h>
#include <jansson.h>
#include "shardcheck.h"
#include "svg.h"

#define XP_MAX_WORLD 256 /* a picture per rank: larger meshes are unreadable */

/* One layout's picture: the mesh, placements and shape, every rank's shard, and with a
 * random op each shard's Philox window. */
typedef struct xp {
    shc_mesh m;
    shc_placements pl;
    shc_shape s;
    int64_t numel;
    shc_layout *lay;    /* per global rank */
    int *shard_of;      /* per global rank: index of its distinct shard */
    int64_t *rep;       /* per shard: its lowest rank */
    int nshards;
    int64_t max_numel;
    const char *op;
    shc_rng_offsets *off; /* per global rank, with --op */
    shc_rng_audit audit;
    int64_t counter_max;  /* end of the counter line: max(end_incr, window ends) */
} xp;

/* A layout as the CLI spells it. */
typedef struct xp_spec {
    const char *mesh, *ranks, *placements, *shape; /* ranks NULL: arange */
    int64_t world; /* ranks in the world, 0: the mesh's size (a group's "world") */
} xp_spec;
/* Build x (zeroed, then x->m parsed by the caller, who words its errors; x owns it from
 * then on) from the placements and shape as the CLI spells them; row: the random op whose
 * windows to draw (NULL: none; else x->op is its name as the user gave it, set by the
 * caller), tver the release deciding its dispatch.  SHC_OK, or an error naming the option;
 * xp_free after either. */
int xp_make(xp *x, const char *placements, const char *shape, const shc_rng_op *row,
            const char *tver, shc_err *e);
void xp_free(xp *x);
/* The picture as text on stdout: tensor grid, shards, groups, windows and findings. */
void xp_print(const xp *x);
/* The same as SVG into path, whole or nothing; 0, or -1 with errno. */
int xp_svg_file(const xp *x, const char *path);
/* n pictures x[0..n) one below the other into path, titles[k] (NULL: the layouts) first. */
int xp_svg_file_n(const xp *x, int n, const char *const *titles, const char *path);
/* The same as an inline <svg> element into f (an HTML page; no XML declaration), with
 * title as its first line (NULL: the layout). */
void xp_svg_inline(const xp *x, FILE *f, const char *title);

/* ---- golden cases' layouts ---- */

/* The layouts a golden case's inputs (its group's members and its own, as verify's failure
 * groups give them) describe, spelled as the CLI spells them: "mesh", "rankMap",
 * "placements" and "shape" give one; "src" and "dst" with "shape" give two (before and
 * after a redistribute).  Returns how many (0: the inputs hold no layout), each layout's
 * strings in bufs (a caller's char[4][256] per layout) and its name in names. */
int explain_inputs_layouts(const json_t *inputs, xp_spec out[2], const char *names[2],
                           char bufs[2][4][256]);
/* Draw the layouts of inputs inline into f (xp_svg_inline), one picture each; SHC_OK, or
 * the reason no picture can be drawn (no layout, a mesh too large: SHC_EUNSUPPORTED/
 * SHC_EINVAL) in e, nothing written. */
int explain_inputs_svg(FILE *f, const json_t *inputs, shc_err *e);

#endif
