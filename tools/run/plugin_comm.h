/*
 * plugin_comm.h — redistribute-data on an ABI v2 plugin (lib/shardcheck_backend.h): the
 * plugin's execute runs each mesh rank's redistribute over a communicator table
 * (shc_backend_comm), the vendor's own (comm_open) or shardcheck's, and every case's
 * outcome names the one used.
 *
 * Two pieces, both in plugin_comm.c:
 *  - shardcheck's communicator as a shc_backend_comm (plugin_bcomm_*): a `shc_comm *`
 *    (threads in one process, comm_mpi.c or comm_hosted.c under mpirun) behind the
 *    table's entries; broadcast is an all_gatherv where only the root contributes;
 *    send/recv between ranks of this process go through a mailbox, and between
 *    processes (one rank each) as a two-member all_gatherv on the pair.
 *  - one rank's case (plugin_comm_view / plugin_comm_views): its local input built as
 *    every backend builds it (the family's exec.outside hook, testdata.c), the
 *    plugin's execute called, its output checked (dtype, rank, shape against the rank's
 *    slice before its buffer is read) and turned into the family's view with a
 *    "comm": NAME member, which plugin_comm_take removes before the comparison with
 *    the golden view (and plugin_comm_note puts into the outcome's message).
 * A vendor collective that hangs is a Timeout: in one process the forked worker's
 * limit (run_check.c), under mpirun a helper thread per rank whose wait has the case
 * limit (the hung thread is abandoned and the job, out of step, ends after its report;
 * MPI is initialised without thread support, so a vendor stuck inside MPI on that thread
 * while the main thread reports is outside what MPI promises: it works with OpenMPI's
 * polling, and the job is ended right after).
 * Tested by conformance/tests/plugin_comm.sh and check_plugin_comm.c.
 */
#ifndef SHC_PLUGIN_COMM_H
#define SHC_PLUGIN_COMM_H
#include <jansson.h>
#include "shardcheck.h"
#include "shardcheck_backend.h"
#include "family.h"
#include "run.h"

/* What the v2 loader gives: the plugin's table, the host (case reader) and how a case
 * object is made for (family, torch release name, group, test, world). */
/* The release a case judges against as a v2 plugin and a worker are told it ("2.13.0"). */
const char *plugin_comm_release(const run_opts *o);

typedef struct plugin_seam {
    const shc_backend_v2 *be;
    const shc_host_v2 *host;
    shc_case_v2 *(*case_new)(const char *family, const char *torch, const json_t *group,
                             const json_t *test, int64_t world, shc_err *e);
    void (*case_free)(shc_case_v2 *c);
} plugin_seam;

/* ---- shardcheck's communicator as a shc_backend_comm ---- */

typedef struct plugin_mailbox plugin_mailbox; /* point to point inside one process */
/* A mailbox for the mesh ranks [first, first+count) this process runs as threads;
 * a recv waits at most timeout_s (0: an hour). */
plugin_mailbox *plugin_mailbox_new(int64_t first, int64_t count, double timeout_s);
void plugin_mailbox_free(plugin_mailbox *mb);
/* Rank `rank` of the mailbox is done: a recv waiting on it fails instead of waiting. */
void plugin_mailbox_leave(plugin_mailbox *mb, int64_t rank);

typedef struct plugin_bcomm {
    shc_backend_comm pub;     /* what the plugin is given */
    shc_comm *sc;
    plugin_mailbox *mb;       /* NULL: no rank of this process but the caller */
    bool pairs;               /* send/recv to another process: an all_gatherv on the pair */
    char name[48];            /* "shardcheck-local", ... */
    char failure[512];        /* the first error one of its entries returned */
    bool timed_out;           /* ... was the communicator's timeout */
} plugin_bcomm;

/* Wrap sc (not owned) for its rank; mb and pairs as above. */
void plugin_bcomm_init(plugin_bcomm *b, shc_comm *sc, plugin_mailbox *mb, bool pairs);

/* ---- one case ---- */

/* Every rank of a test in this process (threads over shardcheck's local communicator);
 * views[0..world).  The status: Pass (views made), NotSupported or InternalError (msg). */
run_status plugin_comm_views(const plugin_seam *s, const run_opts *o, const shc_family *f,
                             const json_t *group, const json_t *test, int64_t world,
                             json_t **views, char *msg, size_t n);
/* Mesh rank `rank`'s view under mpirun over comm (the job's o->comm when this process hosts
 * one rank: then the vendor's communicator `vendor` when not NULL; a hosted rank's comm
 * otherwise), in a helper thread under o->timeout_s: a hang is RUN_TIMEOUT.  Over the job's
 * own MPI communicator (no vendor table) the helper's collectives are run by the calling
 * thread (the funnel): MPI stays on the thread that initialised it, and comm_mpi.c's
 * watchdog (a timer aimed at that thread) makes a stuck collective a named timeout. */
run_status plugin_comm_view(const plugin_seam *s, const shc_backend_comm *vendor,
                            const run_opts *o, shc_comm *comm, int64_t rank,
                            const shc_family *f, const json_t *group, const json_t *test,
                            json_t **view, char *msg, size_t n);

/* fn(arg, view, msg, n) on a helper thread, waited for at most timeout_s: past it, RUN_TIMEOUT
 * with "WHAT did not return within N s" and the thread is abandoned (with arg: everything it
 * reads must be in arg or live for the whole run); arg_free(arg) when it is done with. */
typedef run_status (*plugin_work_fn)(void *arg, json_t **view, char *msg, size_t n);
typedef struct plugin_funnel plugin_funnel; /* collectives the waiting thread runs (MPI's) */
run_status plugin_comm_guard(double timeout_s, const char *what, plugin_work_fn fn, void *arg,
                             void (*arg_free)(void *), plugin_funnel *fu, json_t **view,
                             char *msg, size_t n);

/* Remove a view's "comm" member, its value into name ("" when none). */
void plugin_comm_take(json_t *view, char *name, size_t n);
/* After the comparison: a failure's message gains " [comm NAME]"; a pass's (empty)
 * message becomes "comm NAME" (run_check prints it beside the Pass). */
void plugin_comm_note(const char *name, int ok, char *msg, size_t n);
#endif
