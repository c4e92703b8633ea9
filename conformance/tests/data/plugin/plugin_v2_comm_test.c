/*
 * plugin_v2_comm_test.c — a minimal ABI v2 plugin for plugin_comm.sh: redistribute-data
 * through the example's execute and communicator (examples/plugin_v2_exec.c), every other
 * family NotSupported.  The example plugin proper (examples/plugin_v2.c) answers them all.
 */
#include <stdio.h>
#include <string.h>
#include <shardcheck_backend.h>

int shc_example_execute(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                        const shc_backend_comm *comm, const shc_tensor_v2 *in,
                        shc_tensor_v2 *out, char *err, size_t errlen);
const shc_backend_comm *shc_example_comm_open(void *self, int64_t rank, int64_t world, char *err,
                                              size_t n);
void shc_example_comm_close(void *self, const shc_backend_comm *comm);

static int supports(void *self, const char *family, char *err, size_t n)
{
    (void)self;
    if (!strcmp(family, "redistribute-data"))
        return 0;
    snprintf(err, n, "the communicator test plugin executes redistribute-data only");
    return SHC_BACKEND_UNSUPPORTED;
}

static int answer(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                  shc_answer_v2 *out, char *err, size_t n)
{
    (void)self, (void)host, (void)c, (void)rank, (void)out;
    snprintf(err, n, "the communicator test plugin executes redistribute-data only");
    return SHC_BACKEND_UNSUPPORTED;
}

static const shc_backend_v2 table = {
    .abi_version = SHC_BACKEND_ABI_V2, .struct_size = sizeof(shc_backend_v2),
    .name = "comm-test", .supports = supports, .answer = answer,
    .execute = shc_example_execute, .comm_open = shc_example_comm_open,
    .comm_close = shc_example_comm_close};

uint32_t shardcheck_backend_abi(void) { return SHC_BACKEND_ABI_V2; }
const shc_backend_v2 *shardcheck_backend_v2(void) { return &table; }
