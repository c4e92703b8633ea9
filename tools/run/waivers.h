/*
 * waivers.h — known deviations (issue 22 item 6; Khronos CTS's waivers, in our terms): a
 * documented list of cases where a backend or a torch release is known to differ from the
 * golden answer, each with the reason and the finding that explains it.  `run --waivers FILE`
 * reports a waived failure as Waived with the reason — never hidden, never counted as a
 * pass — and a waived case that passes as such (a fixed upstream bug is noticed).
 *
 * The file (README, "Known deviations: waivers"):
 *   {"waivers": [{"family": F, "tcIds": [N, ...] | "flag": FLAG, "reason": "...",
 *                 "finding": "docs/findings/x.py", "backends": ["torch"], "torch": ["2.13"]}]}
 * backends and torch, when given, narrow where the waiver applies.  Every waiver is checked
 * against the corpus when loaded: an unknown family, tcId, flag, backend or release, a waiver
 * without a reason and a case waived twice are exit 2 naming the file and the waiver.
 * Tested by waivers.sh; the shipped waivers/torch.json by the main job's torch stage.
 */
#ifndef SHC_TOOLS_WAIVERS_H
#define SHC_TOOLS_WAIVERS_H
#include <stdbool.h>
#include "shardcheck.h"

typedef struct waivers waivers;

/* Load and check path against the corpus in golden, keeping the waivers that apply to
 * backend (its name) under release rel.  SHC_OK with *out set, or e naming the problem. */
int waivers_load(waivers **out, const char *path, const char *golden, const char *backend,
                 shc_torch_release rel, shc_err *e);
/* The reason (with its finding) case (family, tcid) is waived for, or NULL. */
const char *waivers_match(const waivers *w, const char *family, long long tcid);
/* How many cases the loaded file waives where this run applies it. */
long long waivers_count(const waivers *w);
void waivers_free(waivers *w);
#endif
