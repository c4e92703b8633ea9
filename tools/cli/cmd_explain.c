/*
 * cmd_explain.c — `shardcheck explain --mesh M [--ranks L] --placements P --shape S
 * [--op OP] [--svg FILE]`: a picture of who holds what.  The global tensor (dims 0 and
 * 1) with every cell marked by the shard that holds it (one letter per distinct shard:
 * replicas share a letter, `_StridedShard` interleaving shows as alternating letters,
 * `+` where several shards hold a cell of a projected dim, `.` where nobody does), a
 * legend per shard (ranks, local shape, offset, uneven and empty shards marked), the
 * process groups of every mesh dim, and with --op (a random op torch 2.13 tracks on this
 * layout: an untracked or rejected one is exit 2 saying so, as audit rng decides) each shard's
 * Philox window on the counter line: `=` inside [start_incr, end_incr), `!` past
 * end_incr (OffsetOverrun), `X` over another shard's window (OffsetOverlap), and shards
 * starting together named (OffsetSameStart).  --svg FILE draws the same as SVG.
 * Everything comes from lib's public API (layout, groups, rng offsets and audit).
 * Tested by conformance/tests/cli_explain.sh (pictures, SVG, every error path).
 */
#include "config.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "svg.h"
#include "torch_version.h"

#define XP_MAX_WORLD 256 /* a picture per rank: larger meshes are unreadable */
#define XP_ROWS 32
#define XP_COLS 64
#define XP_LINE 64

static const char LETTERS[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char *const PALETTE[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                      "#edc948", "#ff9da7", "#9c755f", "#bab0ac", "#86bcb6"};
static const char *const OPS[] = {"uniform", "normal", "random", "bernoulli", "dropout",
                                  "exponential", NULL};

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

static void xp_free(xp *x)
{
    if (x->lay)
        for (int64_t r = 0; r < x->m.size; r++)
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
    x->off = calloc((size_t)x->m.size, sizeof *x->off);
    if (!rc && !x->off)
        rc = shc_fail(e, SHC_ENOMEM, "explain: out of memory");
    x->counter_max = rl.end_incr;
    for (int64_t r = 0; r < x->m.size && !rc; r++) {
        rc = shc_rng_offsets_rank(&rl, &x->m, r, &x->off[r], e);
        if (!rc && x->off[r].start_incr + x->off[r].local_numel > x->counter_max)
            x->counter_max = x->off[r].start_incr + x->off[r].local_numel;
    }
    return rc;
}

static int xp_build(xp *x, shc_err *e)
{
    int64_t n = x->m.size;
    x->lay = calloc((size_t)n, sizeof *x->lay);
    x->shard_of = calloc((size_t)n, sizeof *x->shard_of);
    x->rep = calloc((size_t)n, sizeof *x->rep);
    if (!x->lay || !x->shard_of || !x->rep)
        return shc_fail(e, SHC_ENOMEM, "explain: out of memory");
    for (int64_t r = 0; r < n; r++) {
        int rc = shc_layout_of_rank(&x->m, &x->pl, &x->s, r, &x->lay[r], e);
        if (rc)
            return rc;
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

/* The cell (i, j) of the picture: a shard letter, '+' for several, '.' for none. */
static char cell(const xp *x, int64_t i, int64_t j)
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

static void grid_dims(const xp *x, int64_t *rows, int64_t *cols, int64_t *sr, int64_t *sc)
{
    *rows = x->s.ndim >= 2 ? x->s.d[0] : 1;
    *cols = x->s.ndim >= 2 ? x->s.d[1] : x->s.ndim == 1 ? x->s.d[0] : 1;
    *sr = *rows > XP_ROWS ? (*rows + XP_ROWS - 1) / XP_ROWS : 1;
    *sc = *cols > XP_COLS ? (*cols + XP_COLS - 1) / XP_COLS : 1;
}

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
    for (int64_t r = 0; r < x->m.size; r++)
        count += x->shard_of[r] == k;
    size_t at = (size_t)snprintf(buf, n, "%c: rank%s ", letter(k), count > 1 ? "s" : "");
    int shown = 0;
    for (int64_t r = 0; r < x->m.size && at < n; r++)
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
    int64_t lo = c * unit, hi = lo + unit;
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

static void print_text(const xp *x)
{
    char mb[64], pb[256], sb[160], lab[512];
    shc_mesh_format(&x->m, mb, sizeof mb);
    shc_placements_format_trace(&x->pl, pb, sizeof pb);
    if (!x->pl.has_order)
        shc_placements_format(&x->pl, pb, sizeof pb);
    shc_shape_format(&x->s, sb, sizeof sb);
    printf("mesh %s  placements %s  shape [%s]  (%d distinct shards over %lld ranks)\n", mb, pb,
           sb, x->nshards, (long long)x->m.size);
    int64_t rows, cols, sr, sc;
    grid_dims(x, &rows, &cols, &sr, &sc);
    printf("\nglobal tensor, %s (cell = shard holding it; + several, . none)%s:\n",
           x->s.ndim >= 2 ? "dims 0 x 1" : x->s.ndim == 1 ? "dim 0" : "0-d",
           sr > 1 || sc > 1 ? "  [scaled: a cell is its first element]" : "");
    for (int64_t i = 0; i < rows; i += sr) {
        printf("  ");
        for (int64_t j = 0; j < cols; j += sc)
            putchar(cell(x, x->s.ndim >= 2 ? i : j, j));
        putchar('\n');
    }
    printf("\nshards:\n");
    for (int k = 0; k < x->nshards; k++) {
        shard_label(x, k, lab, sizeof lab);
        printf("  %s\n", lab);
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
    int64_t unit = x->counter_max > XP_LINE ? (x->counter_max + XP_LINE - 1) / XP_LINE : 1;
    int64_t chars = (x->counter_max + unit - 1) / unit;
    printf("\nPhilox windows of %s (offset increments; 1 char = %lld; end_incr %lld at |):\n",
           x->op, (long long)unit, (long long)x->off[0].end_incr);
    printf("     ");
    for (int64_t c = 0; c <= chars; c++)
        putchar(c * unit == x->off[0].end_incr || (c * unit < x->off[0].end_incr &&
                (c + 1) * unit > x->off[0].end_incr) ? '|' : '-');
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

/* The same picture as SVG: grid, legend, groups, Philox windows.  0, or -1 with errno. */
static int write_svg(const xp *x, const char *path)
{
    int64_t rows, cols, sr, sc;
    grid_dims(x, &rows, &cols, &sr, &sc);
    int gr = (int)((rows + sr - 1) / sr), gc = (int)((cols + sc - 1) / sc);
    double cs = gc * 20 > 760 ? 760.0 / gc : 20;
    int ngroups = x->m.ndim;
    int height = 60 + (int)(gr * cs) + 30 + 18 * x->nshards + 30 + 18 * ngroups +
                 (x->op ? 60 + 22 * x->nshards : 0) + 20;
    svg s;
    if (svg_open(&s, path, 800, height) != 0)
        return -1;
    char mb[64], pb[256], sb[160], lab[512];
    shc_mesh_format(&x->m, mb, sizeof mb);
    shc_placements_format(&x->pl, pb, sizeof pb);
    if (x->pl.has_order)
        shc_placements_format_trace(&x->pl, pb, sizeof pb);
    shc_shape_format(&x->s, sb, sizeof sb);
    snprintf(lab, sizeof lab, "mesh %s  placements %s  shape [%s]", mb, pb, sb);
    svg_text(&s, 20, 24, 16, "start", "black", lab);
    double y = 40;
    for (int64_t i = 0, gi = 0; i < rows; i += sr, gi++)
        for (int64_t j = 0, gj = 0; j < cols; j += sc, gj++) {
            char ch = cell(x, x->s.ndim >= 2 ? i : j, j), t[2] = {ch, 0};
            const char *p = strchr(LETTERS, ch);
            const char *fill = ch == '.' ? "white" : ch == '+' ? "#555555"
                               : PALETTE[p ? (p - LETTERS) % 10 : 0];
            svg_rect(&s, 20 + gj * cs, y + gi * cs, cs, cs, fill, "#dddddd");
            if (cs >= 12)
                svg_text(&s, 20 + gj * cs + cs / 2, y + gi * cs + cs * 0.7, (int)(cs * 0.6),
                         "middle", ch == '.' ? "#999999" : "white", t);
        }
    y += gr * cs + 30;
    for (int k = 0; k < x->nshards; k++, y += 18) {
        shard_label(x, k, lab, sizeof lab);
        svg_rect(&s, 20, y - 11, 12, 12, PALETTE[k % 10], NULL);
        svg_text(&s, 38, y, 12, "start", "black", lab);
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
        svg_text(&s, 20, y, 12, "start", "black", lab);
    }
    if (x->op) {
        double x0 = 60, w = 700, k2px = w / (double)(x->counter_max ? x->counter_max : 1);
        int64_t end = x->off[0].end_incr;
        snprintf(lab, sizeof lab, "Philox windows of %s (offset increments 0..%lld; end_incr %lld)",
                 x->op, (long long)x->counter_max, (long long)end);
        svg_text(&s, 20, y + 10, 13, "start", "black", lab);
        y += 30;
        for (int k = 0; k < x->nshards; k++, y += 22) {
            const shc_rng_offsets *o = &x->off[x->rep[k]];
            char t[2] = {letter(k), 0};
            svg_text(&s, 40, y + 12, 12, "end", "black", t);
            double a = x0 + o->start_incr * k2px, b = a + o->local_numel * k2px;
            double e2 = x0 + end * k2px;
            if (o->local_numel)
                svg_rect(&s, a, y, (b < e2 ? b : e2) - a > 0 ? (b < e2 ? b : e2) - a : 0, 14,
                         PALETTE[k % 10], NULL);
            if (b > e2 && o->local_numel) /* OffsetOverrun: past end_incr */
                svg_rect(&s, a > e2 ? a : e2, y, b - (a > e2 ? a : e2), 14, "#d62728", NULL);
            for (int j = 0; j < x->nshards; j++) { /* OffsetOverlap with another shard */
                const shc_rng_offsets *p = &x->off[x->rep[j]];
                int64_t lo = o->start_incr > p->start_incr ? o->start_incr : p->start_incr;
                int64_t hi = o->start_incr + o->local_numel < p->start_incr + p->local_numel
                                 ? o->start_incr + o->local_numel : p->start_incr + p->local_numel;
                if (j != k && p->shard_linear_index != o->shard_linear_index && lo < hi)
                    svg_rect(&s, x0 + lo * k2px, y + 10, (hi - lo) * k2px, 4, "#ff7f0e", NULL);
            }
        }
        svg_line(&s, x0 + end * k2px, y - 22 * x->nshards - 4, x0 + end * k2px, y, "black", 2);
    }
    return svg_close(&s);
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

static int explain(const cli_common *c, const char *op, const char *svgpath, const char *tver)
{
    shc_err e = {0};
    xp x = {0};
    x.op = op;
    if (!c->placements || !c->shape)
        return cli_usage_error("explain", "--placements and --shape are required (see --help)");
    const shc_rng_op *row = NULL;
    if (op) { /* a kernel name (uniform, ...) or an op of `shardcheck ops` */
        int i = 0;
        shc_torch_op k;
        while (OPS[i] && strcmp(OPS[i], op))
            i++;
        row = OPS[i] && !shc_torch_op_parse(op, &k, &e) ? shc_rng_op_for_kernel(k)
                                                         : shc_rng_op_find(op);
        if (!row)
            return cli_usage_error("explain", "--op: unknown random op '%s' (one of uniform, "
                                   "normal, random, bernoulli, dropout, exponential, or an op "
                                   "of `shardcheck ops`)", CLI_ECHO(op));
    }
    int rc = cli_load_mesh(c, &x.m, &e);
    if (rc)
        return cli_report("explain", rc, &e);
    if ((rc = shc_placements_parse(&x.pl, c->placements, &e)))
        shc_err_prefix(&e, "--placements");
    else if ((rc = shc_shape_parse(&x.s, c->shape, &e)))
        shc_err_prefix(&e, "--shape");
    else if ((rc = shc_placements_check(&x.pl, &x.m, x.s.ndim, &e)))
        shc_err_prefix(&e, "--placements");
    else if ((rc = shc_shape_numel(&x.s, &x.numel, &e)))
        shc_err_prefix(&e, "--shape");
    else if (x.m.size > XP_MAX_WORLD)
        rc = shc_fail(&e, SHC_EINVAL, "--mesh: %lld ranks; explain draws at most %d",
                      (long long)x.m.size, XP_MAX_WORLD);
    else if (row)
        rc = tracked_op(&x, row, tver, &e);
    if (!rc)
        rc = xp_build(&x, &e);
    if (rc) {
        xp_free(&x);
        return cli_report("explain", rc, &e);
    }
    int code = EXIT_OK;
    if (svgpath && write_svg(&x, svgpath) != 0) {
        fprintf(stderr, "shardcheck explain: --svg %s: cannot write: %s\n", svgpath,
                strerror(errno));
        code = EXIT_USAGE;
    }
    if (code == EXIT_OK)
        print_text(&x);
    xp_free(&x);
    return code;
}

int cmd_explain(int argc, char **argv)
{
    cli_common c;
    cli_common_init(&c);
    const char *op = NULL, *svgpath = NULL, *tver = NULL;
    const cli_option opts[] = {
        CLI_OPT_MESH(&c), CLI_OPT_RANKS(&c), CLI_OPT_PLACEMENTS(&c), CLI_OPT_SHAPE(&c),
        {.name = "op", .kind = CLI_STR, .meta = "OP", .to = &op,
         .help = "a tracked random op: uniform, normal, bernoulli, dropout or one of `ops`"},
        {.name = "svg", .kind = CLI_STR, .meta = "FILE", .to = &svgpath,
         .help = "also draw it as SVG into FILE"},
        {.name = "torch-version", .kind = CLI_STR, .meta = "V", .to = &tver,
         .help = "with --op: the release whose DTensor dispatch decides (default "
                 "$SHARDCHECK_TORCH_VERSION, else the pinned 2.13)"},
        CLI_OPT_END};
    char about[512];
    snprintf(about, sizeof about,
             "Who holds what: the global tensor with each shard's block, the shards (uneven and\n"
             "empty marked), the groups of every mesh dim; with --op each shard's Philox window\n"
             "on the counter line (! past end_incr, X overlapping another shard, same starts\n"
             "named).  Meshes of at most %d ranks.", XP_MAX_WORLD);
    const cli_command cmd = {.name = "explain", .opts = opts, .about = about,
                             .synopsis = "--mesh M [--ranks L] --placements P --shape S [--op OP] "
                                         "[--svg FILE] [--torch-version V]"};
    int x = cli_parse(&cmd, argc, argv, NULL);
    if (x != CLI_GO)
        return x;
    if (svgpath && !*svgpath)
        return cli_usage_error("explain", "--svg: empty file name");
    if (tver && !op) /* the release decides only the random op's dispatch */
        return cli_usage_error("explain", "--torch-version: not used without --op (layouts "
                               "are the same in every release)");
    return explain(&c, op, svgpath, tver);
}
