/*
 * outfile.h — the CLI's output files: never one of the command's inputs, and written whole
 * or not at all.
 *
 * out_inputs lists what a command reads (a candidate, a plugin, report's JSON inputs, the
 * golden directory with every file and folder in it) by device and inode, so an output
 * option naming an input under another spelling, through a symbolic link or as a hard
 * link is refused as surely as the same name, and so is a new file inside the golden
 * directory; out_refuse says which option would overwrite which input (exit 2).
 *
 * out_open writes a regular file through a temporary file beside it (same directory, so
 * the rename is atomic) that out_commit renames over the target once every byte is
 * written and flushed, and that out_discard (or a failed commit) removes: a full disk or
 * an interrupted run leaves the old file or none, never an empty or truncated one.  A
 * target that exists and is not a regular file (/dev/null, /dev/stdout, a FIFO) is
 * written directly.  Output paths are compared with each other by inode, and by the name
 * they would create when they do not exist yet (out_same).
 * Tested by hardening.sh (N6: every output option at an input, by name, another
 * spelling, a symbolic and a hard link; N19: writes past RLIMIT_FSIZE and to /dev/full).
 */
#ifndef SHC_OUTFILE_H
#define SHC_OUTFILE_H
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "shardcheck.h"

typedef struct out_input {
    dev_t dev;
    ino_t ino;
    bool dir;          /* a directory: a new file inside it is refused too */
    char *what;        /* how the command got it: "given as --candidate", "in the golden ..." */
    char *path;
} out_input;

typedef struct out_inputs {
    out_input *v;
    size_t n, cap;
} out_inputs;

/* Add one input file (nothing when it does not exist: reading it will fail by itself);
 * what says how the command got it ("given as --candidate"). */
void out_inputs_file(out_inputs *in, const char *what, const char *path);
/* Add a directory and every directory and file in it, depth levels of folders below it;
 * label names it in messages ("golden directory"). */
void out_inputs_tree(out_inputs *in, const char *label, const char *dir, int depth);
/* SHC_OK when path (given to option opt; NULL: not given) is none of the inputs and not
 * inside an input directory; else SHC_EINVAL, "--opt PATH: that is INPUT, ..." in e. */
int out_refuse(const out_inputs *in, const char *opt, const char *path, shc_err *e);
/* Whether two paths name the same file: the same string, both exist with one inode, or
 * neither exists and both would create the same name (X and ./X: the directory resolved). */
bool out_same(const char *a, const char *b);
void out_inputs_free(out_inputs *in);

typedef struct out_file {
    FILE *f;
    char path[4096];
    char tmp[4200];    /* "" when writing path directly */
} out_file;

/* Open path for writing: o->f, or NULL with errno set (nothing created). */
FILE *out_open(out_file *o, const char *path);
/* Flush and close, then rename the temporary file over the target: 0, or -1 with errno
 * set and the temporary file removed (the target untouched). */
int out_commit(out_file *o);
/* A file read while it is written (run --journal: the runner reads what a crashed job left):
 * the temporary file, still empty, renamed over the target at once, so the old file is
 * replaced whole and a concurrent run writes its own inode, never into this one.  0, or -1
 * with errno set.  Then out_close_published, not out_commit. */
int out_publish(out_file *o);
/* Flush, fsync and close a published file; when a write failed, the file is removed (if the
 * name is still this file) rather than left partial: 0, or -1 with errno set (0 when the
 * failed write was an earlier one whose reason is gone). */
int out_close_published(out_file *o);
/* Close and remove the temporary file (the target untouched). */
void out_discard(out_file *o);
#endif
