/*
 * progress.h — a one-line progress bar on stderr for long commands (gen, verify, run,
 * certify): label, bar, done/total counts, percent and ETA, redrawn in place at most ten
 * times a second and erased when the work ends, so what is left on the terminal is the
 * command's own output.
 *
 * It draws only when stderr is a terminal: piped or redirected output (CI logs, the
 * JSON a script reads, mpirun's forwarded streams) never gets control characters.
 * SHARDCHECK_NO_PROGRESS=1 turns it off on a terminal too; SHARDCHECK_PROGRESS=1 forces
 * it on without a terminal (hidden, for tests).  Tested by conformance/tests/progress.sh
 * through a pty (`script -qc`) and through pipes.
 */
#ifndef SHC_PROGRESS_H
#define SHC_PROGRESS_H

typedef struct progress {
    int on;              /* drawing at all (decided once, in progress_begin) */
    int drawn;           /* something is on the line and must be erased */
    char label[96];
    long long total, done;
    double t0, last;     /* start and last redraw, monotonic seconds */
} progress;

/* Whether bars are drawn in this process (terminal and environment, see above). */
int progress_enabled(void);
/* Start a bar of total units (0: unknown, counts only) labelled label. */
void progress_begin(progress *p, const char *label, long long total);
/* Change the label (e.g. the family now running) without resetting counts. */
void progress_label(progress *p, const char *label);
/* Set the count of units done; redraws when due. */
void progress_set(progress *p, long long done);
/* Add n units done. */
void progress_add(progress *p, long long n);
/* Erase the bar (no-op when nothing was drawn). */
void progress_end(progress *p);
/* Erase the bar being drawn, if any, before a line goes to stdout on the same terminal;
 * the next update redraws it below that line. */
void progress_hide(void);

#endif
