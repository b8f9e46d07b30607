/* SPDX-License-Identifier: MIT */
/*
 * The fake NCCL's rendezvous (rendezvous.c): communicators whose ranks may
 * live in different processes, and collectives whose device work completes
 * only once every rank of the communicator has enqueued them.  Only
 * communicators made from an id of ncclGetUniqueId (or by ncclCommInitAll
 * and ncclCommSplit of such) take part; any other handle is a local one
 * whose collectives complete at once, as before.
 */
#ifndef FAKECUDA_RENDEZVOUS_H
#define FAKECUDA_RENDEZVOUS_H

#include <stdint.h>
#include "cudaapi.h"

/* ncclResult_t codes the rendezvous returns */
#define RV_OK 0
#define RV_SYSTEM_ERROR 2
#define RV_INVALID_ARGUMENT 4
#define RV_INVALID_USAGE 5

/* A fresh random id, marked as the rendezvous's. */
void rv_new_id(ncclUniqueId *id);
/* Is the id one of rv_new_id's? */
int rv_is_ours(const ncclUniqueId *id);
/* Join rank `rank` of an nranks communicator named by id, as `handle`, and
 * (outside a group) wait until every rank has joined, as ncclCommInitRank
 * does.  An RV_ code. */
int rv_init_rank(const ncclUniqueId *id, int nranks, int rank, uint64_t handle);
/* ncclGroupStart/End: joins inside a group are waited for at its end. */
void rv_group_start(void);
void rv_group_end(void);
/* Enqueue the next collective of the communicator on the stream (a no-op
 * for a handle that is not a rendezvous communicator). */
void rv_enqueue(uint64_t handle, void *stream);
/* ncclCommSplit on the communicator `parent`: a collective of its ranks;
 * the ranks of one color (>= 0) form a new communicator, `handle`, ranked
 * by key then parent rank.  *joined: 1 when `handle` became that
 * communicator (0 for a negative color, or a parent that is not a
 * rendezvous communicator).  An RV_ code. */
int rv_split(uint64_t parent, int color, int key, uint64_t handle, int *joined);
/* ncclCommDestroy: leave; the last rank to leave removes the file. */
void rv_destroy(uint64_t handle);

#endif
