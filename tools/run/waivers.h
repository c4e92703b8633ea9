/*
 * waivers.h — known deviations (issue 22 item 6; Khronos CTS's waivers, in our terms): a
 * documented list of cases where a backend or a torch release is known to differ from the
 * golden answer, each with the reason and the finding that explains it.  `run`, `verify`,
 * `certify` (which carries the file in its package) and the harness take `--waivers FILE`:
 * a waived failure is reported Waived with the reason — never hidden, never counted as a
 * pass — and a waived case that passes as such (a fixed upstream bug is noticed).
 *
 * The file (README, "Known deviations: waivers"):
 *   {"waivers": [{"family": F, "tcIds": [N, ...] | "flag": FLAG, "match": "REGEX",
 *                 "reason": "...", "finding": "docs/findings/x.py",
 *                 "backends": ["torch"], "torch": ["2.13"]}]}
 * A waiver names its cases (tcIds, or every case carrying a flag) and, with "match", the
 * cause: a failure is waived only when "Status: detail" (e.g. "Fail: rank 1: local data:
 * ...") matches the POSIX extended regular expression, so one waiver covers every case a
 * recorded finding produces at any rank count, whichever cases a run reaches; "match" alone
 * scopes the whole family.  A waiver without "match" waives every failure of its cases, and
 * one with tcIds claims each of them fails: a pass is reported stale.  A cause waiver (flag
 * or family, with "match") that waived nothing while cases of its scope passed is a note
 * (waivers_notes), not a failure: a run at another rank count or a sample may not reach it.
 * backends and torch, when given, narrow where the waiver applies.  Every waiver is checked
 * when loaded: a member of the wrong type, an unknown family, tcId, flag, backend or
 * release, a bad pattern, a waiver without a reason and a case waived twice by waivers
 * without "match" are exit 2 naming the file, the waiver and the member.
 * Tested by waivers.sh and waivers_torch.sh; the shipped waivers/torch.json by the main
 * job's torch stage.
 */
#ifndef SHC_TOOLS_WAIVERS_H
#define SHC_TOOLS_WAIVERS_H
#include <stdbool.h>
#include <stdio.h>
#include "shardcheck.h"

typedef struct waivers waivers;

/* Load and check path against the corpus in golden (each family read once), keeping the
 * waivers that apply to backend (a run backend's name, "candidate" or "harness") under
 * release rel.  SHC_OK with *out set, or e naming the problem. */
int waivers_load(waivers **out, const char *path, const char *golden, const char *backend,
                 shc_torch_release rel, shc_err *e);
/* The reason (with its finding) the outcome of case (family, tcid) is waived for, or NULL:
 * status is the reporter's name ("Pass", "Fail", "Crash", ...) and detail its message.  For
 * a pass, the reason of a waiver that claims the case fails (it is stale).  Counts what it
 * answered for waivers_notes. */
const char *waivers_match(waivers *w, const char *family, long long tcid, const char *status,
                          const char *detail);
/* After the last case: a line (each prefixed) per cause waiver that waived nothing while
 * cases of its scope passed. */
void waivers_notes(const waivers *w, FILE *f, const char *prefix);
/* How many (case, waiver) pairs the loaded file has where this run applies it (a
 * whole-family cause waiver counts once). */
long long waivers_count(const waivers *w);
void waivers_free(waivers *w);
#endif
