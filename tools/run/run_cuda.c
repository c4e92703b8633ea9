/*
 * run_cuda.c — `shardcheck run --backend cuda`: every rank's view computed on a
 * GPU (rank r on device r % visible devices; under mpirun one process per rank,
 * several may share a device) by the CUDA kernels of lib/cuda, then checked as
 * every backend is (run_check.c): against golden, or — where the golden's GPU
 * profile launches another grid than the device — against the CPU reference
 * computed for the device's own profile (shc_gpu_profile_for_device); the
 * message names the profile used.
 *
 * Built without CUDA, or with no usable GPU (no driver, cudaGetDeviceCount fails
 * or finds 0), the backend prints the reason and the run exits 77.  The probe runs
 * in a child process: CUDA initialised here would be unusable in the forked
 * workers that compute the views.
 *
 * SHARDCHECK_CUDA_EMULATE=PROFILE swaps the GPU for the CPU grid emulator (a test
 * mode of this plumbing, announced on stderr; never a GPU result).
 *
 * redistribute-data (a family with an exec.on_device_comm hook) executes with its
 * tensors in device memory (lib/exec/redistribute_dev.c: slicing and packing as kernels):
 * in one process, every rank is a thread on GPU rank % devices and collectives
 * are host-staged over the local communicator; under mpirun, one process per rank
 * with collectives over NCCL when every rank has a GPU of its own (nprocs <=
 * visible devices and libnccl loads), else host-staged over MPI (ranks share a
 * GPU).  Under SHARDCHECK_CUDA_EMULATE the device is the grid emulator
 * (xdev_emu.c) and collectives are host-staged.
 *
 * A GpuOnly case (golden values from a CPU model of CUDA's transcendental math,
 * docs/cuda-math.md) that the device does not match is NotSupported with the
 * difference stated, never Pass; so is an SfuModel case (the sm_90 unit's model)
 * on a device of another generation.  On an sm_90 device an SfuModel case is
 * compared exactly: that is the model's cross-check.
 * Tested (no GPU) by conformance/tests/run_cuda.sh; on a GPU by the same script.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "exit_codes.h"
#include "run.h"
#ifdef HAVE_CUDA
#include "cuda/shc_cuda.h"
#include "torch_rng_grid.h"
#include "xdev.h"
#endif

#define SKIP_PREFIX "shardcheck run: --backend cuda: skipped: "

/* The cuda backend's own state: how many devices it found (rank r uses r % devices). */
typedef struct cuda_state { int devices; } cuda_state;

static inline cuda_state *cuda_state_of(const run_opts *o) { return o->be_state; }

#ifndef HAVE_CUDA /* 77 with the reason: CUDA was not built in */
static int run_cuda_start(run_opts *o)
{
    fprintf(stderr, SKIP_PREFIX "this shardcheck was built without CUDA "
            "(configure --with-cuda; needs nvcc and the CUDA runtime)\n");
    return EXIT_SKIP;
}

static run_status run_cuda_views(const run_opts *o, const shc_family *f, const json_t *group,
                                 const json_t *test, int64_t first, int64_t count, json_t **views,
                                 char *msg, size_t n)
{
    snprintf(msg, n, "built without CUDA");
    return RUN_NOTSUPPORTED;
}

static void run_cuda_stop(void) {}

static run_status run_cuda_comm_view(const run_opts *o, shc_comm *comm, int64_t rank,
                                     const shc_family *f, const json_t *group, const json_t *test,
                                     json_t **view, char *msg, size_t n)
{
    (void)o, (void)comm, (void)rank, (void)f, (void)group, (void)test, (void)view;
    snprintf(msg, n, "built without CUDA");
    return RUN_NOTSUPPORTED;
}
#else
/* "NAME (SMSxTHREADS)", with "@sm_XY" where the capability is known: the profile a view
 * is computed for, its SFU model included (a custom profile carries the device's). */
static void profile_label(const shc_gpu_profile *g, char *out, size_t n)
{
    if (g->cc)
        snprintf(out, n, "%s (%dx%d@sm_%d)", g->name, g->sm_count, g->max_threads_per_sm, g->cc);
    else
        snprintf(out, n, "%s (%dx%d)", g->name, g->sm_count, g->max_threads_per_sm);
}

/* "GPU 0: NAME, profile P (SMSxTHREADS@sm_XY); ..." for the run's first line. */
static void describe(int cnt, char *out, size_t n)
{
    size_t used = 0;
    out[0] = 0;
    for (int d = 0; d < cnt && used + 1 < n; d++) {
        shc_gpu_profile g;
        char name[128], label[96];
        shc_err e = {0};
        int bad = shc_cuda_profile(d, &g, name, sizeof name, &e);
        if (!bad)
            profile_label(&g, label, sizeof label);
        int w = bad ? snprintf(out + used, n - used, "%sGPU %d: %s", d ? "; " : "", d, e.msg)
                    : snprintf(out + used, n - used, "%sGPU %d: %s, profile %s", d ? "; " : "", d,
                               name, label);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* cudaGetDeviceCount in a child; the count (> 0) or 0 with the reason; with
 * devices, why describes them. */
static int probe(char *why, size_t n)
{
    int fd[2];
    if (pipe(fd)) {
        snprintf(why, n, "cannot probe for GPUs: pipe failed");
        return 0;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        char line[600];
        int cnt = shc_cuda_probe(line + 16, sizeof line - 16);
        if (cnt > 0)
            describe(cnt, line + 16, sizeof line - 16);
        char head[17];
        snprintf(head, sizeof head, "%-15d ", cnt);
        memcpy(line, head, 16);
        ssize_t w = write(fd[1], line, strlen(line + 16) + 16);
        _exit(w > 0 ? 0 : 1);
    }
    close(fd[1]);
    char buf[600] = "";
    ssize_t got = pid > 0 ? read(fd[0], buf, sizeof buf - 1) : -1;
    close(fd[0]);
    int st = 0;
    if (pid > 0)
        waitpid(pid, &st, 0);
    if (got < 16) {
        snprintf(why, n, "the CUDA probe process failed (%s)",
                 pid < 0 ? "fork" : WIFSIGNALED(st) ? "killed by a signal" : "no answer");
        return 0;
    }
    buf[got] = 0;
    snprintf(why, n, "%.480s", buf + 16);
    return atoi(buf);
}

/* SHARDCHECK_CUDA_EMULATE=PROFILE (a preset or SMSxTHREADS[@sm_XY]): no GPU is used; the
 * "device" is the CPU grid emulator (lib/rng/torch_rng_grid.c) with that profile, so
 * make check exercises this backend's plumbing (device views, the reference for
 * another profile, reports) on machines without a GPU.  Never a GPU result. */
static const char *emulated(void)
{
    const char *s = getenv("SHARDCHECK_CUDA_EMULATE");
    return s && *s ? s : NULL;
}

static int emulated_fill(const shc_rng_device *d, uint64_t seed, int64_t offset,
                         const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                         uint8_t *mask, int64_t *new_offset, shc_err *e)
{
    return shc_torch_rng_grid_fill(&d->profile, seed, offset, r, start, count, out, mask,
                                   new_offset, e);
}

static int start_emulated(run_opts *o, const char *spec)
{
    shc_gpu_profile g;
    shc_err e = {0};
    if (shc_gpu_profile_parse(spec, &g, &e)) {
        fprintf(stderr, "shardcheck run: SHARDCHECK_CUDA_EMULATE: %s\n", e.msg);
        return EXIT_USAGE;
    }
    cuda_state_of(o)->devices = 1;
    char label[96];
    profile_label(&g, label, sizeof label);
    fprintf(stderr, "shardcheck run: --backend cuda: no GPU used: SHARDCHECK_CUDA_EMULATE runs the "
            "kernel bodies on the CPU grid emulator, profile %s\n", label);
    return 0;
}

/* Find the GPUs: 0, or 77 with the reason printed when there is none (start). */
static int run_cuda_start(run_opts *o)
{
    if (emulated())
        return start_emulated(o, emulated());
    char why[512] = "";
    int devices = cuda_state_of(o)->devices = probe(why, sizeof why);
    if (devices > 0) { /* the profiles the views are computed and checked with */
        fprintf(stderr, "shardcheck run: --backend cuda: %s\n", why);
        return 0;
    }
    fprintf(stderr, SKIP_PREFIX "%s\n", why);
    return EXIT_SKIP;
}

static int device_fill(const shc_rng_device *d, uint64_t seed, int64_t offset,
                       const shc_torch_rng_req *r, int64_t start, int64_t count, void *out,
                       uint8_t *mask, int64_t *new_offset, shc_err *e)
{
    return shc_cuda_torch_rng_fill(d->index, seed, offset, r, start, count, out, mask, new_offset,
                                   NULL, e);
}

/* Views carry the CPU reference for the device's profile (when the golden's does
 * not apply) and the profile's name under this key; run_cuda_compare takes it out. */
#define META "cudaReference"

static run_status one_view(const shc_family *f, const shc_rng_device *d, const json_t *group,
                           const json_t *test, int64_t rank, json_t **view, char *msg, size_t n)
{
    shc_err e = {0};
    json_t *ref = NULL;
    int rc = f->device.fill(d, group, test, rank, view, &ref, &e);
    if (rc == SHC_EUNSUPPORTED) {
        snprintf(msg, n, "%s", e.msg);
        return RUN_NOTSUPPORTED;
    }
    if (rc == SHC_EINTERNAL || rc == SHC_ENOMEM) {
        snprintf(msg, n, "rank %lld on GPU %d: %s", (long long)rank, d->index, e.msg);
        return RUN_INTERNAL;
    }
    if (rc) {
        *view = json_pack("{s:s}", "error", e.msg);
        return RUN_PASS;
    }
    char prof[96];
    profile_label(&d->profile, prof, sizeof prof);
    json_t *meta = json_pack("{s:s,s:i}", "profile", prof, "sfu", shc_gpu_sfu_model(&d->profile));
    if (ref)
        json_object_set_new(meta, "view", ref);
    json_object_set_new(*view, META, meta);
    return RUN_PASS;
}

/* ---- redistribute-data: tensors in device memory ---- */

/* The device of rank: the grid emulator (CUDA's launch grid) or GPU rank % devices. */
static int open_device(const run_opts *o, int64_t rank, shc_xdev **out, shc_err *e)
{
    if (emulated())
        return shc_xdev_emu_open(0, SHC_RK_BLOCK, out, e);
    return shc_cuda_xdev_open((int)(rank % cuda_state_of(o)->devices), out, e);
}

static int open_for_thread(void *arg, int64_t rank, shc_xdev **out, shc_err *e)
{
    return open_device(arg, rank, out, e);
}

typedef struct dexec {
    const shc_family *f;
    const json_t *group, *test;
    json_t **views; /* every rank's (world entries) */
} dexec;

static int dexec_rank(shc_dcomm *dc, void *arg, shc_err *e)
{
    dexec *x = arg;
    int64_t r = dc->host->rank;
    return x->f->exec.on_device_comm(shc_dexec_redistribute, dc, x->group, x->test, r,
                                     &x->views[r], e);
}

/* One process: every rank a thread on its device, collectives host-staged over the
 * local communicator; views[i] for ranks first..first+count-1. */
static run_status threads_views(const run_opts *o, const shc_family *f, const json_t *group,
                                const json_t *test, int64_t first, int64_t count, json_t **views,
                                char *msg, size_t n)
{
    int64_t world = f->world_size(group);
    if (world > o->max_ranks) {
        snprintf(msg, n, "needs %lld simulated ranks, --max-ranks is %lld", (long long)world,
                 (long long)o->max_ranks);
        return RUN_NOTSUPPORTED;
    }
    dexec x = {f, group, test, calloc((size_t)world, sizeof(json_t *))};
    shc_err e = {0};
    int rc = x.views ? shc_dexec_local_run(world, open_for_thread, (void *)o, dexec_rank, &x, NULL, &e)
                     : shc_fail(&e, SHC_ENOMEM, "out of memory");
    for (int64_t r = 0; r < world; r++) {
        if (!rc && r >= first && r < first + count)
            views[r - first] = x.views[r];
        else
            json_decref(x.views[r]);
    }
    free(x.views);
    if (rc)
        snprintf(msg, n, "cuda backend: %s", e.msg);
    return rc ? RUN_INTERNAL : RUN_PASS;
}

/* Under mpirun: this process's device and device communicator, made on first use. */
static shc_xdev *mpi_dev;
static shc_dcomm *mpi_dc;

static int mpi_device(const run_opts *o, shc_err *e)
{
    if (mpi_dc)
        return SHC_OK;
    int rc = mpi_dev ? SHC_OK : open_device(o, o->rank, &mpi_dev, e);
    if (rc)
        return rc;
    char why[300] = "ranks share a GPU";
    if (emulated()) {
        snprintf(why, sizeof why, "SHARDCHECK_CUDA_EMULATE");
    } else if (o->nprocs <= cuda_state_of(o)->devices) {
        shc_err ne = {0};
        if (!shc_cuda_nccl_new(o->comm, mpi_dev, &mpi_dc, &ne)) {
            if (o->rank == 0)
                fprintf(stderr, "shardcheck run: --backend cuda: redistribute collectives over "
                        "NCCL (a GPU per rank)\n");
            return SHC_OK;
        }
        snprintf(why, sizeof why, "%.280s", ne.msg);
    }
    if ((rc = shc_dcomm_staged_new(o->comm, mpi_dev, &mpi_dc, e)))
        return rc;
    if (o->rank == 0)
        fprintf(stderr, "shardcheck run: --backend cuda: redistribute collectives host-staged over "
                "MPI (%s)\n", why);
    return SHC_OK;
}

/* Free what run_cuda_comm_view made (NCCL communicators), before MPI_Finalize. */
static void run_cuda_stop(void)
{
    if (mpi_dc)
        mpi_dc->ops->destroy(mpi_dc); /* NCCL's communicators, before MPI_Finalize */
    if (mpi_dev)
        mpi_dev->ops->destroy(mpi_dev);
    mpi_dc = NULL;
    mpi_dev = NULL;
}

/* A hosted rank (a process hosting several, comm from comm_hosted.c, this rank's thread):
 * a device of its own (GPU rank % visible ones) and collectives host-staged over comm, as
 * the one-process threads do; NCCL needs a process per rank. */
static int hosted_dcomm_view(const run_opts *o, shc_comm *comm, int64_t rank,
                             const shc_family *f, const json_t *group, const json_t *test,
                             json_t **view, shc_err *e)
{
    shc_xdev *dev = NULL;
    shc_dcomm *dc = NULL;
    int rc = open_device(o, rank, &dev, e);
    if (!rc)
        rc = shc_dcomm_staged_new(comm, dev, &dc, e);
    if (!rc)
        rc = f->exec.on_device_comm(shc_dexec_redistribute, dc, group, test, rank, view, e);
    if (dc)
        dc->ops->destroy(dc);
    if (dev)
        dev->ops->destroy(dev);
    return rc;
}

/* Under mpirun, a family with an exec.on_device_comm hook (redistribute-data): this rank's
 * view with its tensors on the device, collectives over NCCL or host-staged MPI (the
 * backend's comm_view). */
static run_status run_cuda_comm_view(const run_opts *o, shc_comm *comm, int64_t rank,
                                     const shc_family *f, const json_t *group, const json_t *test,
                                     json_t **view, char *msg, size_t n)
{
    if (!f->exec.on_device_comm) {
        snprintf(msg, n, "no device computation for this family on the cuda backend");
        return RUN_NOTSUPPORTED;
    }
    shc_err e = {0};
    int rc;
    if (comm != o->comm) {
        rc = hosted_dcomm_view(o, comm, rank, f, group, test, view, &e);
    } else if (!(rc = mpi_device(o, &e))) {
        rc = f->exec.on_device_comm(shc_dexec_redistribute, mpi_dc, group, test, rank, view, &e);
    }
    if (!rc)
        return RUN_PASS;
    snprintf(msg, n, "rank %lld: %s", (long long)rank, e.msg);
    return strstr(e.msg, "mpi: timeout") ? RUN_TIMEOUT : RUN_INTERNAL;
}

/* Every rank's view computed on device rank % the GPUs (views). */
static run_status run_cuda_views(const run_opts *o, const shc_family *f, const json_t *group,
                                 const json_t *test, int64_t first, int64_t count, json_t **views,
                                 char *msg, size_t n)
{
    if (f->exec.on_device_comm)
        return threads_views(o, f, group, test, first, count, views, msg, n);
    if (!f->device.fill) {
        snprintf(msg, n, "no device computation for this family on the cuda backend");
        return RUN_NOTSUPPORTED;
    }
    for (int64_t i = 0; i < count; i++) {
        shc_rng_device d = {.index = (int)((first + i) % cuda_state_of(o)->devices),
                            .fill = device_fill};
        shc_err e = {0};
        if (emulated()) {
            d.fill = emulated_fill;
            if (shc_gpu_profile_parse(emulated(), &d.profile, &e)) {
                snprintf(msg, n, "SHARDCHECK_CUDA_EMULATE: %s", e.msg);
                return RUN_INTERNAL;
            }
        } else if (shc_cuda_profile(d.index, &d.profile, NULL, 0, &e)) {
            snprintf(msg, n, "GPU %d: %s", d.index, e.msg);
            return RUN_INTERNAL;
        }
        run_status st = one_view(f, &d, group, test, first + i, &views[i], msg, n);
        if (st != RUN_PASS)
            return st;
    }
    return RUN_PASS;
}
#endif

/* 1: match; 0: mismatch (msg); 2: a GpuOnly mismatch (msg says so: NotSupported). */
static int run_cuda_compare(const json_t *test, int64_t rank, json_t *got, char *msg, size_t n)
{
    json_t *meta = json_incref(json_object_get(got, "cudaReference"));
    json_object_del(got, "cudaReference");
    const json_t *ref = meta ? json_object_get(meta, "view") : NULL;
    const char *prof = meta ? json_string_value(json_object_get(meta, "profile")) : NULL;
    char m[600];
    int ok;
    if (ref) { /* the golden's profile is not the device's: the CPU reference for the device's */
        ok = json_equal(got, (json_t *)ref);
        snprintf(m, sizeof m, "differs from the CPU reference for the device's profile %s",
                 prof ? prof : "?");
    } else {
        ok = shc_compare_view(test, rank, got, m, sizeof m);
    }
    /* SfuModel: the golden follows the sm_90 unit's model; another generation's
     * unit is not modelled, so its difference says nothing about the golden */
    if (!ok && shc_test_has_flag(test, "SfuModel") && meta &&
        json_integer_value(json_object_get(meta, "sfu")) != SHC_SFU_SM90) {
        snprintf(msg, n, "SfuModel: the golden follows the sm_90 special-function unit, and the "
                 "device (%s) is another generation, which no recording models (%s)",
                 prof ? prof : "?", m);
        json_decref(meta);
        return 2;
    }
    if (!ok && shc_test_has_flag(test, "GpuOnly")) {
        snprintf(msg, n, "GpuOnly: the golden holds a CPU model of CUDA's math, which the device "
                 "does not match here (%s)", m);
        json_decref(meta);
        return 2;
    }
    if (!ok)
        snprintf(msg, n, "%s", m);
    else if (ref)
        snprintf(msg, n, "checked against the CPU reference for the device's profile %s", prof);
    json_decref(meta);
    return ok;
}

/* ---- the cuda backend's record ---- */

static void cuda_stop(run_opts *o)
{
    if (o->mpi_job)
        run_cuda_stop();
}

static run_status cuda_views(const run_opts *o, const shc_family *f, const json_t *group,
                             const json_t *test, int64_t world, int64_t first, int64_t count,
                             json_t **views, char *msg, size_t n)
{
    return run_cuda_views(o, f, group, test, first, count, views, msg, n);
}

static int cuda_compare(const shc_family *f, const json_t *test, int64_t rank, json_t *got,
                        char *msg, size_t n)
{
    return run_cuda_compare(test, rank, got, msg, n);
}

/* Under mpirun a family executing in this process (exec.on_device_comm: CUDA and NCCL here)
 * runs after those computed in forked workers, which could not use CUDA once this process
 * had initialised it. */
static bool cuda_runs_last(const run_opts *o, const shc_family *f)
{
    return o->mpi_job && f->exec.on_device_comm;
}

static cuda_state cuda_own;

static const char *const cuda_spellings[] = {"cuda", NULL};
const run_backend run_backend_cuda = {
    .name = "cuda", .spellings = cuda_spellings, .usage = "cuda",
    .help = "each rank's view on a GPU (rank mod GPUs; 77 where CUDA or a GPU is missing)",
    .procs = RUN_PER_RANK_UNDER_MPIRUN, .ranks_per_process = RUN_HOSTS_ANY, .max_ranks = 1024,
    .pass_note = true, .state = &cuda_own, .start = run_cuda_start,
    .stop = cuda_stop, .views = cuda_views, .compare = cuda_compare,
    .comm_view = run_cuda_comm_view, .runs_last = cuda_runs_last,
};
