/*
 * plugin_v2_exec.h — the example ABI v2 plugin's redistribute-data entry points
 * (examples/plugin_v2_exec.c): its execute, a redistribute over the communicator table it
 * is handed, and its own communicator table over MPI (comm_open / comm_close; built with
 * SHC_EXAMPLE_MPI, else it supplies none).  examples/plugin_v2.c puts them in its table;
 * the fault-planting test plugin (conformance/tests/plugin_v2_comm_test.c)
 * wraps them.  Tested by plugin_v2.sh and plugin_comm.sh.
 */
#ifndef SHC_EXAMPLE_PLUGIN_V2_EXEC_H
#define SHC_EXAMPLE_PLUGIN_V2_EXEC_H
#include <shardcheck_backend.h>

int shc_example_execute(void *self, const shc_host_v2 *host, const shc_case_v2 *c, int64_t rank,
                        const shc_backend_comm *comm, const shc_tensor_v2 *in,
                        shc_tensor_v2 *out, char *err, size_t errlen);
const shc_backend_comm *shc_example_comm_open(void *self, int64_t rank, int64_t world, char *err,
                                              size_t n);
void shc_example_comm_close(void *self, const shc_backend_comm *comm);
#endif
