/*
 * svg.c — the minimal SVG writer (svg.h): numbers printed with fixed precision so
 * pictures are byte-stable, text escaped for XML; a file of its own or an element inline
 * in an HTML page.  Tested through `shardcheck explain
 * --svg` in conformance/tests/cli_explain.sh.
 */
#include "config.h"
#include <errno.h>
#include <stdarg.h>
#include "svg.h"

static void out(svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(svg *s, const char *fmt, ...)
{
    if (!s->f || s->err)
        return;
    va_list ap;
    va_start(ap, fmt);
    if (vfprintf(s->f, fmt, ap) < 0)
        s->err = errno ? errno : EIO;
    va_end(ap);
}

int svg_open(svg *s, const char *path, int width, int height)
{
    s->err = 0;
    s->inline_ = 0;
    s->f = out_open(&s->of, path); /* renamed into place by svg_close: whole or nothing */
    if (!s->f)
        return -1;
    out(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
           "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
           "viewBox=\"0 0 %d %d\" font-family=\"monospace\">\n"
           "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
        width, height, width, height, width, height);
    return 0;
}

void svg_open_inline(svg *s, FILE *f, int width, int height)
{
    s->err = 0;
    s->inline_ = 1;
    s->f = f;
    out(s, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
           "viewBox=\"0 0 %d %d\" font-family=\"monospace\">\n"
           "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n",
        width, height, width, height, width, height);
}

void svg_group_begin(svg *s, double dy)
{
    out(s, "<g transform=\"translate(0,%.1f)\">\n", dy);
}

void svg_group_end(svg *s)
{
    out(s, "</g>\n");
}

void svg_rect(svg *s, double x, double y, double w, double h, const char *fill, const char *stroke)
{
    out(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"", x, y, w, h,
        fill);
    if (stroke)
        out(s, " stroke=\"%s\" stroke-width=\"1\"", stroke);
    out(s, "/>\n");
}

void svg_line(svg *s, double x1, double y1, double x2, double y2, const char *stroke, double width)
{
    out(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
           "stroke-width=\"%.1f\"/>\n", x1, y1, x2, y2, stroke, width);
}

void svg_text(svg *s, double x, double y, int size, const char *anchor, const char *fill,
              const char *text)
{
    out(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\" fill=\"%s\">", x, y,
        size, anchor, fill);
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '<': out(s, "&lt;"); break;
        case '>': out(s, "&gt;"); break;
        case '&': out(s, "&amp;"); break;
        case '"': out(s, "&quot;"); break;
        default: out(s, "%c", *p);
        }
    }
    out(s, "</text>\n");
}

int svg_close(svg *s)
{
    if (!s->f)
        return -1;
    out(s, "</svg>\n");
    int err = s->err;
    if (s->inline_) { /* the caller's stream: its owner commits or discards it */
        s->f = NULL;
        return err ? (errno = err, -1) : 0;
    }
    if (err)
        out_discard(&s->of);
    else if (out_commit(&s->of))
        err = errno ? errno : EIO;
    s->f = NULL;
    if (err) {
        errno = err;
        return -1;
    }
    return 0;
}
