// SPDX-License-Identifier: MIT
/*
 * Fake libnccl.so.2: the collectives and communicator calls ingero traces.
 * As in the real library, each public name is a weak alias of a "p"-prefixed
 * profiling entry point at the same address (ncclAllReduce = pncclAllReduce).
 * Time grows with count * sizeof(datatype) under FAKECUDA_BW_MBPS; that
 * time is spent in the host call.  Communicators made from an id of
 * ncclGetUniqueId rendezvous across processes (rendezvous.c): a collective
 * is enqueued on its stream, and the stream's synchronize returns once
 * every rank has enqueued it.
 */
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "cudaapi.h"
#include "fake.h"
#include "rendezvous.h"

enum {
	O_AllReduce, O_AllGather, O_ReduceScatter, O_Broadcast, O_Send, O_Recv,
	O_CommInitRank, O_CommDestroy, O_Reduce, O_Bcast, O_GroupStart, O_GroupEnd,
	O_GetUniqueId, O_CommInitRankConfig, O_CommInitAll, O_CommSplit, O__N
};

static struct fk_op ops[O__N] = {
	[O_AllReduce] = { "ncclAllReduce", 1 },
	[O_AllGather] = { "ncclAllGather", 1 },
	[O_ReduceScatter] = { "ncclReduceScatter", 1 },
	[O_Broadcast] = { "ncclBroadcast", 1 },
	[O_Send] = { "ncclSend", 1 },
	[O_Recv] = { "ncclRecv", 1 },
	[O_CommInitRank] = { "ncclCommInitRank", 0 },
	[O_CommDestroy] = { "ncclCommDestroy", 0 },
	[O_Reduce] = { "ncclReduce", 1 },
	[O_Bcast] = { "ncclBcast", 1 },
	[O_GroupStart] = { "ncclGroupStart", 0 },
	[O_GroupEnd] = { "ncclGroupEnd", 0 },
	[O_GetUniqueId] = { "ncclGetUniqueId", 0 },
	[O_CommInitRankConfig] = { "ncclCommInitRankConfig", 0 },
	[O_CommInitAll] = { "ncclCommInitAll", 0 },
	[O_CommSplit] = { "ncclCommSplit", 0 },
};

__attribute__((constructor)) static void init(void)
{
	fk_init(ops, O__N);
}

/* ncclDataType_t sizes: int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 */
static uint64_t nbytes(size_t count, ncclDataType_t t)
{
	static const unsigned char sz[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2 };
	return (uint64_t)count * (t >= 0 && t < (int)sizeof(sz) ? sz[t] : 1);
}

/*
 * The socket transport: with FAKECUDA_NCCL_FD=N (a connected TCP socket to
 * the peer rank), a collective's data really crosses the network: for
 * each 64 KiB chunk of its bytes (up to 4 MiB) the call sends the peer a
 * request (the chunk's size, 8 bytes) and waits for the peer's chunk, as
 * a rank waits for its peer's half.  A lost segment then stretches the
 * call by its retransmission, as it stretches NCCL's socket transport.
 */
static int peer_fd(void)
{
	static int fd = -2;
	if (fd == -2) {
		const char *e = getenv("FAKECUDA_NCCL_FD");
		fd = e && *e ? atoi(e) : -1;
	}
	return fd;
}

static void exchange(uint64_t bytes)
{
	static char buf[1 << 16];
	int fd = peer_fd();
	if (fd < 0)
		return;
	uint64_t left = bytes < (4u << 20) ? bytes : (4u << 20);
	while (left) {
		uint64_t n = left < sizeof(buf) ? left : sizeof(buf), got = 0;
		if (send(fd, &n, sizeof(n), MSG_NOSIGNAL) != (ssize_t)sizeof(n))
			return;
		while (got < n) {
			ssize_t r = recv(fd, buf, (size_t)(n - got), 0);
			if (r <= 0)
				return;
			got += (uint64_t)r;
		}
		left -= n;
	}
}

#define WEAK_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((weak, alias(#target), visibility("default")))

FK_API ncclResult_t pncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
				   ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
				   cudaStream_t stream)
{
	(void)sendbuff, (void)recvbuff, (void)op;
	exchange(nbytes(count, datatype));
	int r = fk_run(&ops[O_AllReduce], nbytes(count, datatype));
	if (!r)
		rv_enqueue((uint64_t)comm, stream);
	return r;
}
WEAK_ALIAS(ncclAllReduce, pncclAllReduce);

FK_API ncclResult_t pncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
				   ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream)
{
	(void)sendbuff, (void)recvbuff;
	int r = fk_run(&ops[O_AllGather], nbytes(sendcount, datatype));
	if (!r)
		rv_enqueue((uint64_t)comm, stream);
	return r;
}
WEAK_ALIAS(ncclAllGather, pncclAllGather);

FK_API ncclResult_t pncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
				       ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
				       cudaStream_t stream)
{
	(void)sendbuff, (void)recvbuff, (void)op;
	int r = fk_run(&ops[O_ReduceScatter], nbytes(recvcount, datatype));
	if (!r)
		rv_enqueue((uint64_t)comm, stream);
	return r;
}
WEAK_ALIAS(ncclReduceScatter, pncclReduceScatter);

FK_API ncclResult_t pncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
				   ncclDataType_t datatype, int root, ncclComm_t comm,
				   cudaStream_t stream)
{
	(void)sendbuff, (void)recvbuff, (void)root;
	int r = fk_run(&ops[O_Broadcast], nbytes(count, datatype));
	if (!r)
		rv_enqueue((uint64_t)comm, stream);
	return r;
}
WEAK_ALIAS(ncclBroadcast, pncclBroadcast);

FK_API ncclResult_t pncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype,
			      int peer, ncclComm_t comm, cudaStream_t stream)
{
	(void)sendbuff, (void)peer, (void)comm, (void)stream;
	return fk_run(&ops[O_Send], nbytes(count, datatype));
}
WEAK_ALIAS(ncclSend, pncclSend);

FK_API ncclResult_t pncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
			      ncclComm_t comm, cudaStream_t stream)
{
	(void)recvbuff, (void)peer, (void)comm, (void)stream;
	return fk_run(&ops[O_Recv], nbytes(count, datatype));
}
WEAK_ALIAS(ncclRecv, pncclRecv);

#define COMM_BASE 0x5c0000000000ull

/* With an id of ncclGetUniqueId, waits for every rank to join (inside a
 * group: at ncclGroupEnd); any other id makes a local communicator. */
FK_API ncclResult_t pncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
	int r = fk_run(&ops[O_CommInitRank], 0);
	uint64_t h = r ? 0 : fk_handle(COMM_BASE);
	if (h && rv_is_ours(&commId))
		r = rv_init_rank(&commId, nranks, rank, h);
	if (comm)
		*comm = r ? NULL : (ncclComm_t)h;
	return r;
}
WEAK_ALIAS(ncclCommInitRank, pncclCommInitRank);

FK_API ncclResult_t pncclCommDestroy(ncclComm_t comm)
{
	rv_destroy((uint64_t)comm);
	return fk_run(&ops[O_CommDestroy], 0);
}
WEAK_ALIAS(ncclCommDestroy, pncclCommDestroy);

FK_API ncclResult_t pncclReduce(const void *sendbuff, void *recvbuff, size_t count,
				ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
				cudaStream_t stream)
{
	(void)sendbuff, (void)recvbuff, (void)op, (void)root;
	int r = fk_run(&ops[O_Reduce], nbytes(count, datatype));
	if (!r)
		rv_enqueue((uint64_t)comm, stream);
	return r;
}
WEAK_ALIAS(ncclReduce, pncclReduce);

/* The legacy in-place broadcast (NCCL 1's signature, still exported). */
FK_API ncclResult_t pncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
			       ncclComm_t comm, cudaStream_t stream)
{
	(void)buff, (void)root;
	int r = fk_run(&ops[O_Bcast], nbytes(count, datatype));
	if (!r)
		rv_enqueue((uint64_t)comm, stream);
	return r;
}
WEAK_ALIAS(ncclBcast, pncclBcast);

/* A group defers the waits of the inits in it to its end (rendezvous.c). */
FK_API ncclResult_t pncclGroupStart(void)
{
	rv_group_start();
	return fk_run(&ops[O_GroupStart], 0);
}
WEAK_ALIAS(ncclGroupStart, pncclGroupStart);

FK_API ncclResult_t pncclGroupEnd(void)
{
	int r = fk_run(&ops[O_GroupEnd], 0);
	rv_group_end();
	return r;
}
WEAK_ALIAS(ncclGroupEnd, pncclGroupEnd);

/* Random bytes, as the real id (a magic and the root's socket address)
 * differs on every call; marked as the rendezvous's, whose ranks get it
 * from their launcher, as from a real job's store. */
FK_API ncclResult_t pncclGetUniqueId(ncclUniqueId *uniqueId)
{
	int r = fk_run(&ops[O_GetUniqueId], 0);
	if (!uniqueId)
		return RV_INVALID_ARGUMENT;
	rv_new_id(uniqueId);
	return r;
}
WEAK_ALIAS(ncclGetUniqueId, pncclGetUniqueId);

FK_API ncclResult_t pncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId,
					    int rank, ncclConfig_t *config)
{
	(void)config;
	int r = fk_run(&ops[O_CommInitRankConfig], 0);
	uint64_t h = r ? 0 : fk_handle(COMM_BASE);
	if (h && rv_is_ours(&commId))
		r = rv_init_rank(&commId, nranks, rank, h);
	if (comm)
		*comm = r ? NULL : (ncclComm_t)h;
	return r;
}
WEAK_ALIAS(ncclCommInitRankConfig, pncclCommInitRankConfig);

/* Every rank of a single-process job: one communicator per device; local
 * ones (no rendezvous: one thread drives them all, and a caller that uses
 * only the first must not wait for the others). */
FK_API ncclResult_t pncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist)
{
	(void)devlist;
	int r = fk_run(&ops[O_CommInitAll], 0);
	for (int i = 0; comm && i < ndev; i++)
		comm[i] = r ? NULL : (ncclComm_t)fk_handle(COMM_BASE);
	return r;
}
WEAK_ALIAS(ncclCommInitAll, pncclCommInitAll);

/* NCCL_SPLIT_NOCOLOR: this rank joins no new communicator.  Of a
 * rendezvous communicator: a collective of its ranks, whose new
 * communicators rendezvous too. */
FK_API ncclResult_t pncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
				   ncclConfig_t *config)
{
	(void)config;
	int r = fk_run(&ops[O_CommSplit], 0), joined = 0;
	uint64_t h = r || color == NCCL_SPLIT_NOCOLOR ? 0 : fk_handle(COMM_BASE);
	if (!r)
		r = rv_split((uint64_t)comm, color, key, h, &joined);
	if (newcomm)
		*newcomm = r ? NULL : (ncclComm_t)h;
	return r;
}
WEAK_ALIAS(ncclCommSplit, pncclCommSplit);
