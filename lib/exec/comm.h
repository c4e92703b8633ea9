/*
 * comm.h — the communicator interface redistribute execution runs on.
 *
 * A communicator knows its global rank and world size and offers the
 * collectives torch 2.13's redistribute uses (funcol all_gather_single,
 * all_to_all_single, reduce_scatter_tensor, all_reduce), each on a
 * sub-group given as a list of global ranks in DeviceMesh order (the
 * caller's rank is in the list; its index is its group rank).  Buffers are
 * contiguous bytes; collectives with equal per-rank sizes take the size of
 * one rank's part.  Backends: comm_local.c (threads in one process) and
 * comm_mpi.c (OpenMPI, built only with HAVE_MPI).  The element-wise
 * reduction kernel every backend shares is here too (comm.c).
 * Tested by conformance/tests/check_exec.c (every collective and op, on
 * sub-groups, against hand-computed answers).
 */
#ifndef SHC_COMM_H
#define SHC_COMM_H
#include "shardcheck.h"




/* Conversions shared by the kernels and the test data. */
float shc_bf16_to_float(uint16_t h);
uint16_t shc_float_to_bf16(float f);
float shc_f16_to_float(uint16_t h);
uint16_t shc_float_to_f16(float f);
/* Store the exact small integer v as one element of dtype t at p. */
void shc_store_int(void *p, shc_dtype t, int64_t v);
/* Load element p of dtype t as a double. */
double shc_load_double(const void *p, shc_dtype t);

/* ---- mpi backend (comm_mpi.c, comm_hosted.c; only in an MPI build) ---- */
#ifdef HAVE_MPI
/* A communicator over MPI_COMM_WORLD (MPI must be initialised). */
int shc_comm_mpi_new(shc_comm **out, double timeout_s, shc_err *e);
/* Run fn once for every mesh rank of a `world`-rank mesh that this process (its rank in
 * MPI_COMM_WORLD, of nprocs there) hosts under shc_comm_host_block, each on its own
 * thread with a communicator of that rank: a collective reaches the members hosted here
 * through memory and the others over MPI, one message per pair of processes per
 * collective, so every process hosting a rank of the mesh must call this for the same
 * case.  errs[i] (count entries) receives hosted rank first+i's error.  Returns the first
 * failure; a communication failure past timeout_s names itself "mpi: timeout". */
int shc_comm_hosted_run(int64_t world, double timeout_s, shc_rank_fn fn, void *arg,
                        shc_err *errs, shc_err *e);
#endif
#endif
