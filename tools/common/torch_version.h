/*
 * torch_version.h — the torch release a command judges against (torch_version.c: the
 * option, SHARDCHECK_TORCH_VERSION, what an input records, the pinned default).
 */
#ifndef SHC_TORCH_VERSION_H
#define SHC_TORCH_VERSION_H
#include <stdbool.h>
#include <stddef.h>
#include "shardcheck.h"

/* The --torch-version help line, shared by every command that takes it. */
#define TV_HELP "the torch release to judge against: 2.11 .. 2.15 or a minor's newest patch " \
    "(default: $SHARDCHECK_TORCH_VERSION, else what the input records, else the pinned 2.13)"

/* The "torch" release the JSON object at path (a regular file: a results file, a run/verify
 * report) records among its top-level members, wherever it stands and however spelt (escapes
 * decoded): *found and its value in out.  SHC_EINVAL naming the file when "torch" is not a
 * string (a number, an object...) or not one that fits out; nothing found for a file that
 * is not a regular file or not an object (its reader refuses it). */
int tv_read_recorded(const char *path, char *out, size_t cap, bool *found, shc_err *e);
/* tv_read_recorded as a yes/no: whether a release string was found. */
bool tv_recorded(const char *path, char *out, size_t cap);
/* The release judged against: opt (--torch-version; NULL or "" if not given), else
 * SHARDCHECK_TORCH_VERSION, else recorded (what `where` records; NULL: nothing), else the
 * pinned release; why says which.  SHC_EINVAL for a bad spelling (the message lists the
 * supported releases) or for a choice that contradicts the recorded one. */
int tv_resolve(const char *opt, const char *recorded, const char *where, shc_torch_release *out,
               char *why, size_t whyn, shc_err *e);
#endif
