/*
 * explain_draw.c — one layout's picture (explain.h): the global tensor (dims 0 and 1) with
 * every cell marked by the shard that holds it (one letter per distinct shard: replicas
 * share a letter, `_StridedShard` interleaving shows as alternating letters, `+` where
 * several shards hold a cell of a projected dim, `.` where nobody does), a legend per
 * shard (ranks, local shape, offset, uneven and empty shards marked), the process groups
 * of every mesh dim, and with a random op each shard's Philox window on the counter line:
 * `=` inside [start_incr, end_incr), `!` past end_incr (OffsetOverrun), `X` over another
 * shard's window (OffsetOverlap), and shards starting together named (OffsetSameStart).
 * As text, as an SVG file, or as an inline <svg> for the HTML report.  Everything comes
 * from lib's public API (layout, groups, rng offsets and audit).  A golden case's inputs
 * (mesh, rankMap, placements or src and dst, shape) give its layouts (explain_inputs_layouts),
 * drawn inline in the HTML report (explain_inputs_svg).  A mesh in a larger world (--world, a
 * group's "world") lists the ranks off it, which hold torch's empty local tensor; the arrays
 * below are indexed by global rank over the whole world, shard_of -1 off the mesh.
 * Tested by conformance/tests/cli_explain.sh (pictures, SVG, every error path) and
 * report_html.sh (inline pictures).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "explain.h"
#include "torch_version.h"

#define XP_ROWS 32
#define XP_COLS 64
#define XP_LINE 64

static const char LETTERS[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char *const PALETTE[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                      "#edc948", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6"};
static char letter(int k) { return k < (int)sizeof LETTERS - 1 ? LETTERS[k] : '#'; }

static int64_t lnumel(const shc_layout *l)
{
    int64_t n = 1;
    for (int d = 0; d < l->local.ndim; d++)
        n *= l->local.d[d]; /* bounded by the global numel, checked by shc_shape_numel */
    return n;
}

static bool same_layout(const shc_layout *a, const shc_layout *b)
{
    for (int d = 0; d < a->local.ndim; d++) {
        if (a->local.d[d] != b->local.d[d] || a->offset[d] != b->offset[d] ||
            !a->index[d] != !b->index[d])
            return false;
        if (a->index[d] && memcmp(a->index[d], b->index[d], (size_t)a->index_len[d] * 8))
            return false;
    }
    return true;
}

/* Whether layout l holds global index i of tensor dim d. */
static bool holds(const shc_layout *l, int d, int64_t i)
{
    if (l->index[d]) {
        for (int64_t k = 0; k < l->index_len[d]; k++)
            if (l->index[d][k] == i)
                return true;
        return false;
    }
    return i >= l->offset[d] && i < l->offset[d] + l->local.d[d];
}

/* Ranks in the world: the mesh's, and any off it (shc_mesh_init_world). */
static int64_t world_of(const xp *x) { return x->m.max_rank + 1; }

void xp_free(xp *x)
{
    if (x->lay)
        for (int64_t r = 0; r < world_of(x); r++)
            shc_layout_free(&x->lay[r]);
    free(x->lay), free(x->shard_of), free(x->rep), free(x->off);
    shc_mesh_free(&x->m);
}

static int xp_rng(xp *x, shc_err *e)
{
    shc_rng_layout rl;
    int rc = shc_rng_layout_init(&rl, &x->m, &x->pl, &x->s, e);
    if (!rc)
        rc = shc_rng_audit_layout(&x->m, &x->pl, &x->s, &x->audit, e);
    x->off = calloc((size_t)world_of(x), sizeof *x->off);
    if (!rc && !x->off)
        rc = shc_fail(e, SHC_ENOMEM, "explain: out of memory");
    x->counter_max = rl.end_incr;
    for (int64_t r = 0; r < world_of(x) && !rc; r++) {
        if (x->shard_of[r] < 0)
            continue; /* off the mesh: no random op runs there */
        rc = shc_rng_offsets_rank(&rl, &x->m, r, &x->off[r], e);
        if (!rc && x->off[r].start_incr + x->off[r].local_numel > x->counter_max)
            x->counter_max = x->off[r].start_incr + x->off[r].local_numel;
    }
    return rc;
}

static int xp_build(xp *x, shc_err *e)
{
    int64_t n = world_of(x);
    x->lay = calloc((size_t)n, sizeof *x->lay);
    x->shard_of = calloc((size_t)n, sizeof *x->shard_of);
    x->rep = calloc((size_t)n, sizeof *x->rep);
    if (!x->lay || !x->shard_of || !x->rep)
        return shc_fail(e, SHC_ENOMEM, "explain: out of memory");
    for (int64_t r = 0; r < n; r++) {
        bool in_mesh;
        int rc = shc_layout_of_world_rank(&x->m, &x->pl, &x->s, r, &x->lay[r], &in_mesh, e);
        if (rc)
            return rc;
        x->shard_of[r] = -1;
        if (!in_mesh)
            continue;
        int k = 0;
        while (k < x->nshards && !same_layout(&x->lay[x->rep[k]], &x->lay[r]))
            k++;
        if (k == x->nshards)
            x->rep[x->nshards++] = r;
        x->shard_of[r] = k;
        if (lnumel(&x->lay[r]) > x->max_numel)
            x->max_numel = lnumel(&x->lay[r]);
    }
    return x->op ? xp_rng(x, e) : SHC_OK;
}

/* The glyph of cell (i, j) of the picture: a shard letter, '+' for several, '.' for none. */
static char glyph(const xp *x, int64_t i, int64_t j)
{
    int found = -1;
    for (int k = 0; k < x->nshards; k++) {
        const shc_layout *l = &x->lay[x->rep[k]];
        bool h = lnumel(l) > 0 && (x->s.ndim < 1 || holds(l, 0, i)) &&
                 (x->s.ndim < 2 || holds(l, 1, j));
        if (h && found >= 0)
            return '+';
        if (h)
            found = k;
    }
    return found < 0 ? '.' : letter(found);
}

/* ceil(n / k) for n >= 0, k > 0, without the n + k - 1 that overflows near INT64_MAX. */
static int64_t ceil_div(int64_t n, int64_t k) { return n > 0 ? (n - 1) / k + 1 : 0; }

/* The picture is at most XP_ROWS x XP_COLS cells whatever the shape (a cell stands for a
 * block of sr x sc elements), so its output and time are bounded by the mesh alone. */
static void grid_dims(const xp *x, int64_t *rows, int64_t *cols, int64_t *sr, int64_t *sc)
{
    *rows = x->s.ndim >= 2 ? x->s.d[0] : 1;
    *cols = x->s.ndim >= 2 ? x->s.d[1] : x->s.ndim == 1 ? x->s.d[0] : 1;
    *sr = *rows > XP_ROWS ? ceil_div(*rows, XP_ROWS) : 1;
    *sc = *cols > XP_COLS ? ceil_div(*cols, XP_COLS) : 1;
}

/* The next sample index after i (step k), or n when it would pass n (or INT64_MAX). */
static int64_t step(int64_t i, int64_t k, int64_t n) { return i > n - k ? n : i + k; }

static void fmt_list(char *buf, size_t n, const int64_t *v, int len)
{
    size_t at = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < len && at < n; i++)
        at += (size_t)snprintf(buf + at, n - at, i ? ",%lld" : "%lld", (long long)v[i]);
    if (at < n)
        snprintf(buf + at, n - at, "]");
}

/* "A: ranks 0,2  local [4,8]  offset [0,0]  (uneven)" for shard k. */
static void shard_label(const xp *x, int k, char *buf, size_t n)
{
    const shc_layout *l = &x->lay[x->rep[k]];
    char ls[128], of[160];
    fmt_list(ls, sizeof ls, l->local.d, l->local.ndim);
    fmt_list(of, sizeof of, l->offset, l->local.ndim);
    int64_t count = 0;
    for (int64_t r = 0; r < world_of(x); r++)
        count += x->shard_of[r] == k;
    size_t at = (size_t)snprintf(buf, n, "%c: rank%s ", letter(k), count > 1 ? "s" : "");
    int shown = 0;
    for (int64_t r = 0; r < world_of(x) && at < n; r++)
        if (x->shard_of[r] == k && shown++ < 8)
            at += (size_t)snprintf(buf + at, n - at, shown > 1 ? ",%lld" : "%lld", (long long)r);
    if (shown > 8 && at < n)
        at += (size_t)snprintf(buf + at, n - at, ",... (%d)", shown);
    int64_t num = lnumel(l);
    const char *mark = num == 0 && x->numel > 0 ? "  (empty)"
                       : num < x->max_numel    ? "  (uneven)" : "";
    bool strided = false;
    for (int d = 0; d < l->local.ndim; d++)
        strided |= l->index[d] != NULL;
    if (at < n)
        snprintf(buf + at, n - at, "  local %s  offset %s%s%s", ls, of, mark,
                 strided ? "  (strided: interleaved indices)" : "");
}

/* Counter-line character c of shard k's window (scale: unit increments per char). */
static char window_char(const xp *x, int k, int64_t c, int64_t unit)
{
    const shc_rng_offsets *o = &x->off[x->rep[k]];
    int64_t lo = c * unit, hi = step(lo, unit, INT64_MAX);
    int64_t a = o->start_incr, b = o->start_incr + o->local_numel;
    if (b <= lo || a >= hi || o->local_numel == 0)
        return ' ';
    if (lo >= o->end_incr)
        return '!';
    for (int j = 0; j < x->nshards; j++) {
        const shc_rng_offsets *p = &x->off[x->rep[j]];
        int64_t pa = p->start_incr, pb = p->start_incr + p->local_numel;
        /* this cell holds part of the two windows' intersection */
        int64_t from = a > pa ? a : pa, to = b < pb ? b : pb;
        from = from > lo ? from : lo, to = to < hi ? to : hi;
        if (j != k && p->shard_linear_index != o->shard_linear_index && pb > pa && from < to)
            return 'X';
    }
    return '=';
}

void xp_print(const xp *x)
{
    char mb[64], pb[256], sb[160], lab[512];
    shc_mesh_format(&x->m, mb, sizeof mb);
    shc_placements_format_trace(&x->pl, pb, sizeof pb);
    if (!x->pl.has_order)
        shc_placements_format(&x->pl, pb, sizeof pb);
    shc_shape_format(&x->s, sb, sizeof sb);
    printf("mesh %s  placements %s  shape [%s]  (%d distinct shards over %lld ranks", mb, pb,
           sb, x->nshards, (long long)x->m.size);
    printf(world_of(x) > x->m.size ? " of a world of %lld)\n" : ")\n", (long long)world_of(x));
    int64_t rows, cols, sr, sc;
    grid_dims(x, &rows, &cols, &sr, &sc);
    printf("\nglobal tensor, %s (cell = shard holding it; + several, . none)%s:\n",
           x->s.ndim >= 2 ? "dims 0 x 1" : x->s.ndim == 1 ? "dim 0" : "0-d",
           sr > 1 || sc > 1 ? "  [scaled: a cell is its first element]" : "");
    for (int64_t i = 0; i < rows && !ferror(stdout); i = step(i, sr, rows)) {
        printf("  ");
        for (int64_t j = 0; j < cols; j = step(j, sc, cols))
            putchar(glyph(x, x->s.ndim >= 2 ? i : j, j));
        putchar('\n');
    }
    printf("\nshards:\n");
    for (int k = 0; k < x->nshards; k++) {
        shard_label(x, k, lab, sizeof lab);
        printf("  %s\n", lab);
    }
    if (world_of(x) > x->m.size) { /* torch's non-participating ranks */
        size_t at = 0;
        int shown = 0;
        for (int64_t r = 0; r < world_of(x) && at < sizeof lab; r++)
            if (x->shard_of[r] < 0 && shown++ < 8)
                at += (size_t)snprintf(lab + at, sizeof lab - at, shown > 1 ? ",%lld" : "%lld",
                                       (long long)r);
        printf("  off the mesh: rank%s %s%s  local [0]  offset []  (torch's non-participating "
               "ranks: an empty 1-d tensor)\n", shown > 1 ? "s" : "", lab,
               shown > 8 ? ",..." : "");
    }
    printf("\ngroups per mesh dim:\n");
    for (int d = 0; d < x->m.ndim; d++) {
        shc_groups g;
        shc_err e = {0};
        if (shc_groups_for_axes(&x->m, &d, 1, &g, &e))
            continue;
        printf("  dim %d (size %lld):", d, (long long)x->m.shape[d]);
        for (int64_t i = 0; i < g.ngroups && i < 16; i++) {
            fmt_list(lab, sizeof lab, g.ranks + i * g.group_size, (int)g.group_size);
            printf(" %s", lab);
        }
        printf(g.ngroups > 16 ? " ... (%lld groups)\n" : "\n", (long long)g.ngroups);
        shc_groups_free(&g);
    }
    if (!x->op)
        return;
    int64_t unit = x->counter_max > XP_LINE ? ceil_div(x->counter_max, XP_LINE) : 1;
    int64_t chars = ceil_div(x->counter_max, unit);
    printf("\nPhilox windows of %s (offset increments; 1 char = %lld; end_incr %lld at |):\n",
           x->op, (long long)unit, (long long)x->off[x->rep[0]].end_incr);
    printf("     ");
    for (int64_t c = 0; c <= chars; c++)
        putchar(c == x->off[x->rep[0]].end_incr / unit ? '|' : '-'); /* the char holding end_incr */
    putchar('\n');
    for (int k = 0; k < x->nshards; k++) {
        const shc_rng_offsets *o = &x->off[x->rep[k]];
        printf("  %c  ", letter(k));
        for (int64_t c = 0; c < chars; c++)
            putchar(window_char(x, k, c, unit));
        printf("  [%lld, %lld)", (long long)o->start_incr,
               (long long)(o->start_incr + o->local_numel));
        for (int j = 0; j < k; j++) {
            const shc_rng_offsets *p = &x->off[x->rep[j]];
            if (p->start_incr == o->start_incr && p->local_numel && o->local_numel &&
                p->shard_linear_index != o->shard_linear_index)
                printf("  same start as %c", letter(j));
        }
        putchar('\n');
    }
    printf("findings:");
    if (!x->audit.kinds)
        printf(" none");
    for (int f = 0; f < SHC_RNGF_COUNT; f++)
        if (x->audit.kinds & (1u << f))
            printf(" %s (%lld)", shc_rng_finding_name(f), (long long)x->audit.count[f]);
    putchar('\n');
}

/* The picture's height in px (its width is 800). */
static int svg_height(const xp *x)
{
    int64_t rows, cols, sr, sc;
    grid_dims(x, &rows, &cols, &sr, &sc);
    int gr = (int)ceil_div(rows, sr), gc = (int)ceil_div(cols, sc);
    double cs = gc * 20 > 760 ? 760.0 / gc : 20;
    return 60 + (int)(gr * cs) + 30 + 18 * x->nshards + 30 + 18 * x->m.ndim +
           (x->op ? 60 + 22 * x->nshards : 0) + 20;
}

/* Grid, legend, groups, Philox windows; title (NULL: the layout) on the first line. */
static void draw(const xp *x, svg *s, const char *title)
{
    int64_t rows, cols, sr, sc;
    grid_dims(x, &rows, &cols, &sr, &sc);
    int gc = (int)ceil_div(cols, sc), gr = (int)ceil_div(rows, sr);
    double cs = gc * 20 > 760 ? 760.0 / gc : 20;
    char mb[64], pb[256], sb[160], lab[512];
    shc_mesh_format(&x->m, mb, sizeof mb);
    shc_placements_format(&x->pl, pb, sizeof pb);
    if (x->pl.has_order)
        shc_placements_format_trace(&x->pl, pb, sizeof pb);
    shc_shape_format(&x->s, sb, sizeof sb);
    snprintf(lab, sizeof lab, "mesh %s  placements %s  shape [%s]", mb, pb, sb);
    svg_text(s, 20, 24, 16, "start", "black", title ? title : lab);
    double y = 40;
    for (int64_t i = 0, gi = 0; i < rows; i = step(i, sr, rows), gi++)
        for (int64_t j = 0, gj = 0; j < cols; j = step(j, sc, cols), gj++) {
            char ch = glyph(x, x->s.ndim >= 2 ? i : j, j), t[2] = {ch, 0};
            const char *p = strchr(LETTERS, ch);
            const char *fill = ch == '.' ? "white" : ch == '+' ? "#555555"
                               : PALETTE[p ? (p - LETTERS) % 10 : 0];
            svg_rect(s, 20 + gj * cs, y + gi * cs, cs, cs, fill, "#dddddd");
            if (cs >= 12)
                svg_text(s, 20 + gj * cs + cs / 2, y + gi * cs + cs * 0.7, (int)(cs * 0.6),
                         "middle", ch == '.' ? "#999999" : "white", t);
        }
    y += gr * cs + 30;
    for (int k = 0; k < x->nshards; k++, y += 18) {
        shard_label(x, k, lab, sizeof lab);
        svg_rect(s, 20, y - 11, 12, 12, PALETTE[k % 10], NULL);
        svg_text(s, 38, y, 12, "start", "black", lab);
    }
    y += 12;
    for (int d = 0; d < x->m.ndim; d++, y += 18) {
        shc_groups g;
        shc_err e = {0};
        size_t at = (size_t)snprintf(lab, sizeof lab, "groups of mesh dim %d:", d);
        if (!shc_groups_for_axes(&x->m, &d, 1, &g, &e)) {
            for (int64_t i = 0; i < g.ngroups && i < 12 && at < sizeof lab; i++) {
                char one[128];
                fmt_list(one, sizeof one, g.ranks + i * g.group_size, (int)g.group_size);
                at += (size_t)snprintf(lab + at, sizeof lab - at, " %s", one);
            }
            shc_groups_free(&g);
        }
        svg_text(s, 20, y, 12, "start", "black", lab);
    }
    if (x->op) {
        double x0 = 60, w = 700, k2px = w / (double)(x->counter_max ? x->counter_max : 1);
        int64_t end = x->off[x->rep[0]].end_incr;
        snprintf(lab, sizeof lab, "Philox windows of %s (offset increments 0..%lld; end_incr %lld)",
                 x->op, (long long)x->counter_max, (long long)end);
        svg_text(s, 20, y + 10, 13, "start", "black", lab);
        y += 30;
        for (int k = 0; k < x->nshards; k++, y += 22) {
            const shc_rng_offsets *o = &x->off[x->rep[k]];
            char t[2] = {letter(k), 0};
            svg_text(s, 40, y + 12, 12, "end", "black", t);
            double a = x0 + o->start_incr * k2px, b = a + o->local_numel * k2px;
            double e2 = x0 + end * k2px;
            if (o->local_numel)
                svg_rect(s, a, y, (b < e2 ? b : e2) - a > 0 ? (b < e2 ? b : e2) - a : 0, 14,
                         PALETTE[k % 10], NULL);
            if (b > e2 && o->local_numel) /* OffsetOverrun: past end_incr */
                svg_rect(s, a > e2 ? a : e2, y, b - (a > e2 ? a : e2), 14, "#d62728", NULL);
            for (int j = 0; j < x->nshards; j++) { /* OffsetOverlap with another shard */
                const shc_rng_offsets *p = &x->off[x->rep[j]];
                int64_t lo = o->start_incr > p->start_incr ? o->start_incr : p->start_incr;
                int64_t hi = o->start_incr + o->local_numel < p->start_incr + p->local_numel
                                 ? o->start_incr + o->local_numel : p->start_incr + p->local_numel;
                if (j != k && p->shard_linear_index != o->shard_linear_index && lo < hi)
                    svg_rect(s, x0 + lo * k2px, y + 10, (hi - lo) * k2px, 4, "#ff7f0e", NULL);
            }
        }
        svg_line(s, x0 + end * k2px, y - 22 * x->nshards - 4, x0 + end * k2px, y, "black", 2);
    }
}

int xp_svg_file(const xp *x, const char *path)
{
    return xp_svg_file_n(x, 1, NULL, path);
}

int xp_svg_file_n(const xp *x, int n, const char *const *titles, const char *path)
{
    int height = 0;
    for (int k = 0; k < n; k++)
        height += svg_height(&x[k]);
    svg s;
    if (svg_open(&s, path, 800, height) != 0)
        return -1;
    if (n == 1) /* one picture: no group, the bytes explain has always written */
        draw(x, &s, titles ? titles[0] : NULL);
    for (int k = 0, y = 0; n > 1 && k < n; y += svg_height(&x[k]), k++) {
        svg_group_begin(&s, y);
        draw(&x[k], &s, titles ? titles[k] : NULL);
        svg_group_end(&s);
    }
    return svg_close(&s);
}

void xp_svg_inline(const xp *x, FILE *f, const char *title)
{
    svg s;
    svg_open_inline(&s, f, 800, svg_height(x));
    draw(x, &s, title);
    svg_close(&s);
}


/* The windows drawn are OffsetBasedRNGTracker's: the op must be one the judged release runs
 * inside it on this layout (its row of the random-op table as that release has it, the
 * decision audit rng makes); an untracked op draws from each rank's own generator (random_
 * has no sharding strategy at all), and one the release rejects on this layout is refused
 * with torch's reason. */
static int tracked_op(const xp *x, const shc_rng_op *row, const char *tver, shc_err *e)
{
    shc_torch_release rel;
    char why[128];
    int rc = tv_resolve(tver, NULL, NULL, &rel, why, sizeof why, e);
    if (rc)
        return rc;
    const shc_rng_policy *pol;
    row = shc_rng_op_in(row, rel);
    if ((rc = shc_rng_op_policy(row, &x->m, &x->pl, &x->s, &pol, e)))
        return shc_err_prefix(e, "--op %s: torch %s", row->name, shc_torch_release_name(rel));
    if (row->dispatch != SHC_RNGD_TRACKED)
        return shc_fail(e, SHC_EINVAL, "--op %s: untracked in torch %s (each rank's own "
                        "generator, every shard from the same offset): no tracker windows to "
                        "draw; `shardcheck audit rng --op %s` reports it", row->name,
                        shc_torch_release_name(rel), row->name);
    return SHC_OK;
}

int xp_make(xp *x, const char *placements, const char *shape, const shc_rng_op *row,
            const char *tver, shc_err *e)
{
    int rc;
    if ((rc = shc_placements_parse(&x->pl, placements, e)))
        shc_err_prefix(e, "--placements");
    else if ((rc = shc_shape_parse(&x->s, shape, e)))
        shc_err_prefix(e, "--shape");
    else if ((rc = shc_placements_normalize(&x->pl, x->s.ndim, e)) ||
             (rc = shc_placements_check(&x->pl, &x->m, x->s.ndim, e)))
        shc_err_prefix(e, "--placements");
    else if ((rc = shc_shape_numel(&x->s, &x->numel, e)))
        shc_err_prefix(e, "--shape");
    else if (x->m.size > XP_MAX_WORLD)
        rc = shc_fail(e, SHC_EINVAL, "--mesh: %lld ranks; explain draws at most %d",
                      (long long)x->m.size, XP_MAX_WORLD);
    else if (world_of(x) > XP_MAX_WORLD)
        rc = shc_fail(e, SHC_EINVAL, "--world: %lld ranks; explain draws at most %d",
                      (long long)world_of(x), XP_MAX_WORLD);
    else if (row)
        rc = tracked_op(x, row, tver, e);
    return rc ? rc : xp_build(x, e);
}

/* ---- inputs to layouts ---- */

/* v, a JSON array of integers, as "a<sep>b<sep>c" into buf; false if it is not one. */
static bool join_ints(const json_t *v, char sep, char *buf, size_t n)
{
    size_t at = 0, i;
    json_t *x;
    buf[0] = 0;
    if (!json_is_array(v))
        return false;
    json_array_foreach(v, i, x) {
        if (!json_is_integer(x) || at >= n)
            return false;
        if (i)
            buf[at++] = sep;
        if (at < n)
            at += (size_t)snprintf(buf + at, n - at, "%lld", (long long)json_integer_value(x));
    }
    return at < n;
}

int explain_inputs_layouts(const json_t *inputs, xp_spec out[2], const char *names[2],
                           char bufs[2][4][256])
{
    const char *pl = json_string_value(json_object_get(inputs, "placements"));
    const char *src = json_string_value(json_object_get(inputs, "src"));
    const char *dst = json_string_value(json_object_get(inputs, "dst"));
    const json_t *rmap = json_object_get(inputs, "rankMap"), *world = json_object_get(inputs,
                                                                                    "world");
    const char *spell[2] = {pl ? pl : src, pl ? NULL : dst};
    const char *const nm[2] = {pl ? "layout" : "source (src)", "target (dst)"};
    int n = 0;
    for (int k = 0; k < 2 && spell[k]; k++) {
        char(*b)[256] = bufs[n];
        if (!join_ints(json_object_get(inputs, "mesh"), 'x', b[0], 256) || !b[0][0] ||
            !join_ints(json_object_get(inputs, "shape"), ',', b[3], 256) ||
            (rmap && !join_ints(rmap, ',', b[1], 256)))
            return 0;
        snprintf(b[2], 256, "%s", spell[k]);
        out[n].mesh = b[0];
        out[n].ranks = rmap ? b[1] : NULL;
        out[n].placements = b[2];
        out[n].shape = b[3];
        out[n].world = json_is_integer(world) ? json_integer_value(world) : 0;
        names[n++] = nm[k];
    }
    return n;
}

int explain_inputs_svg(FILE *f, const json_t *inputs, shc_err *e)
{
    xp_spec c[2];
    const char *names[2];
    char bufs[2][4][256];
    int n = explain_inputs_layouts(inputs, c, names, bufs);
    if (!n)
        return shc_fail(e, SHC_EUNSUPPORTED, "the inputs hold no layout to draw");
    xp x[2];
    memset(x, 0, sizeof x);
    int rc = SHC_OK;
    for (int k = 0; k < n && !rc; k++)
        if (!(rc = shc_mesh_parse_world(&x[k].m, c[k].mesh, c[k].ranks, c[k].world, e)))
            rc = xp_make(&x[k], c[k].placements, c[k].shape, NULL, NULL, e);
    for (int k = 0; k < n && !rc; k++) {
        char title[600];
        snprintf(title, sizeof title, "%s: mesh %s  placements %s  shape [%s]", names[k],
                 c[k].mesh, c[k].placements, c[k].shape);
        xp_svg_inline(&x[k], f, n > 1 ? title : NULL);
    }
    for (int k = 0; k < n; k++)
        xp_free(&x[k]);
    return rc;
}
