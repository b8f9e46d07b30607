/* SPDX-License-Identifier: MIT */
/*
 * The causal engine: turns the statistics of a log (stats.h) into causal
 * chains - an anomaly in the CUDA calls of a process, joined by time and
 * pid/tid with the host evidence that explains it, with a severity, a
 * timeline, a one-sentence root cause quoting the log's numbers and a fix.
 *
 * How the engine decides (its thresholds are private to lib/analyze:
 * lib/analyze/thresholds.h) is in `ingero-correlate --help`; the patterns a
 * chain can have are below.
 */
#ifndef ILOG_CAUSAL_H
#define ILOG_CAUSAL_H

#include "ingero/stats.h"

/*
 * The patterns of a chain (its `pattern` field, SPEC §5.14), one line each:
 * X(ID, name, host, rule).  This list is their one definition: the enum
 * below, the engine's checks, ingero-correlate --help and SPEC's list
 * (tests/unit/patterns.c compares it) come from it; a new pattern is one
 * line here and the detector that proposes it (docs/HACKING.md).
 *   name  what the chain record says; never changes once written (chain
 *         ids hash it);
 *   host  1: a cause outside the process's own GPU work that an interval
 *         of its op is blamed on; a gpu-slow chain of the same process
 *         and time is dropped beside one;
 *   rule  when the chain is found, in one line (help wraps it).
 * The order is --help's and SPEC's; ids are not written anywhere.
 */
#define ILOG_PATTERNS(X)                                                                        \
	X(CPU_CONTENTION, "cpu-contention", 1,                                                  \
	  "the calling threads lost the time off the CPU, preempted by other processes or "     \
	  "waiting for a CPU, in an anomaly of the op or over the whole run")                   \
	X(GPU_CONTENTION, "gpu-contention", 1,                                                  \
	  "other processes' CUDA calls rose with the op's anomaly or stalls: the GPU was "      \
	  "shared")                                                                             \
	X(MEMORY_PRESSURE, "memory-pressure", 1,                                                \
	  "memory ran short (swap grew, or page allocations or used memory an outlier while "   \
	  "scarce) in the op's anomaly or around its stalls, or at the start of an anomaly "   \
	  "nothing else explains that outlasted it; or, graded as likely (title "              \
	  "\"Memory storm (likely)\", metric `likely` 1), one process's page allocations an "  \
	  "outlier in an anomaly nothing else explains, rising over its own rate outside it "  \
	  "by 0.25% or more of the memory available before it per second")                     \
	X(NET_RETRANSMITS, "net-retransmits", 1,                                                \
	  "the node's TCP retransmissions rose with an anomaly of an NCCL call or a "           \
	  "synchronize of a process that moved TCP bytes (more in it than the rest of the "     \
	  "run's rate explains), or were an outlier around most of "                            \
	  "such a call's isolated stalls, or around its stalls too many to be isolated (a "     \
	  "mode of their own in more than 1 call in 20) with one flow retransmitting a "        \
	  "segment or more for each")                                                           \
	X(GPU_SLOW, "gpu-slow", 0,                                                              \
	  "an anomaly of the op that no host signal explains: the GPU work itself got "         \
	  "slower (LOW, undetermined, where the host's CPUs were saturated; LOW, the "          \
	  "hypervisor, where the VM's steal time around the slow calls, above its rate "        \
	  "elsewhere, accounts for half the time lost and no page storm is memory pressure "   \
	  "for certain; LOW, not the GPU's, where the median call's growth accounts for "      \
	  "less than half the time lost: only the slowest calls grew)")                         \
	X(PERIODIC_SPIKE, "periodic-spike", 0,                                                  \
	  "at least 4 slow calls of an op outside its anomalies, more than its spread "         \
	  "predicts, that come in a rhythm")                                                    \
	X(ISOLATED_STALL, "isolated-stall", 0,                                                  \
	  "a few calls of an op at random times (at most 5%) slower than the spread of its "    \
	  "other calls predicts")                                                               \
	X(COLD_START, "cold-start", 0,                                                          \
	  "the first calls of the process's ops were outliers (context creation, module "       \
	  "loading)")                                                                           \
	X(MEMCPY_BOUND, "memcpy-bound", 0,                                                      \
	  "memory copies took more of the process's time than its synchronizes, its other "     \
	  "calls and half its wall time")                                                       \
	X(GRAPH_RECAPTURE, "graph-recapture", 0,                                                \
	  "CUDA graphs were captured and instantiated again after the process started "         \
	  "launching them")                                                                     \
	X(CAPTURE_WARMUP, "capture-warmup", 0,                                                  \
	  "a CUDA graph was captured before any eager warm-up launch and the capture failed "   \
	  "(HIGH) or ended early")                                                              \
	X(CUDA_ERRORS, "cuda-errors", 0,                                                        \
	  "calls of an op returned CUDA errors (HIGH when every call failed)")                  \
	X(GPU_OOM, "gpu-oom", 0, "a GPU allocation failed with out of memory (HIGH)")           \
	X(OOM, "oom", 0,                                                                        \
	  "the kernel OOM killer killed a CUDA process (HIGH), or another process while CUDA "  \
	  "work ran")                                                                           \
	X(DISK_STALL, "disk-stall", 0,                                                          \
	  "the process's CUDA call rate fell while its and its children's I/O wait rose: the "  \
	  "input stalled on disk")                                                              \
	X(CPU_THROTTLE, "cpu-throttle", 1,                                                      \
	  "the process's cgroup was throttled by its CPU quota (cpu.stat) for a material part " \
	  "of its run: its own container's limit, not another process")                        \
	X(OVERSUBSCRIPTION, "oversubscription", 0,                                              \
	  "the process's own threads took the CPU from its CUDA threads: more busy threads "    \
	  "than its CPUs")                                                                      \
	X(PAGEABLE_COPY, "pageable-copy", 0,                                                    \
	  "at least 8 async copies from host memory the process had not pinned, and most of "   \
	  "them, took 50 us or more each: the host waited for the transfer")                    \
	X(HIDDEN_SYNC, "hidden-sync", 0,                                                        \
	  "at least 8 copies or memsets of 4 KiB or less (.item(), a printed tensor) took 50 "  \
	  "us or more each: they waited for the GPU's queue")                                   \
	X(GPU_MEMORY_LEAK, "gpu-memory-leak", 0,                                                \
	  "device memory outstanding grew by 16 MiB or more from the first quarter of the run "  \
	  "to the last and was never freed (HIGH when an allocation then failed with out of "   \
	  "memory)")                                                                            \
	X(GPU_BOUND, "gpu-bound", 0,                                                            \
	  "a note, not a chain: the process spent at least half its time waiting for the GPU "  \
	  "and nothing found a cause of MEDIUM or worse")                                       \
	X(LAUNCH_BOUND, "launch-bound", 0,                                                      \
	  "kernel launches took at least half the process's time over 1,000 or more launches "  \
	  "while its synchronizes took at most a tenth: the GPU waits for the CPU")             \
	X(STRAGGLER, "straggler", 0,                                                            \
	  "one rank arrived last at a communicator's collectives significantly more often "     \
	  "than 1 in nranks; the others waited for it")                                         \
	X(COLLECTIVE_HANG, "collective-hang", 0,                                                \
	  "some ranks entered a collective that never finished and the others never entered "   \
	  "it (HIGH)")                                                                          \
	X(COLLECTIVE_DESYNC, "collective-desync", 0,                                            \
	  "ranks called different collectives (op, count or data type) as the same "            \
	  "collective of a communicator (HIGH)")                                                \
	X(RECORDING_OVERHEAD, "recording-overhead", 0,                                          \
	  "a note, not a chain: the recorder's preemptions of the traced CUDA threads, what "   \
	  "recording cost (the report's header, the summary's recording_overhead_ns)")         \
	X(BETWEEN_CALLS, "between-calls", 1,                                                    \
	  "the process's CUDA call rate fell to under half its median while its calls kept "    \
	  "their latency: the time went between the calls, named by where its calling "         \
	  "threads were (blocked by class, I/O, preempted, throttled, on the CPU)")

enum ilog_pattern {
#define ILOG_PATTERN_ID(id, name, host, rule) ILOG_PAT_##id,
	ILOG_PATTERNS(ILOG_PATTERN_ID)
#undef ILOG_PATTERN_ID
	ILOG_PAT__COUNT
};

struct ilog_pattern_def {
	const char *name;
	int host;
	const char *rule;
};

/* Every pattern, indexed by enum ilog_pattern (ILOG_PAT__COUNT entries). */
extern const struct ilog_pattern_def ilog_patterns[ILOG_PAT__COUNT];

/* Whether chain (or note) c has pattern p. */
int ilog_chain_is(const struct ilog_chain *c, enum ilog_pattern p);

/*
 * Chains are findings: material lost time with a cause.  Notes are what
 * the engine also knows but is no finding - that a process is GPU-bound,
 * what recording cost - with the same fields as a chain; reports show
 * them apart (a header line, a note record), never among the chains.
 */
struct ilog_chain_set {
	struct ilog_chain *chains; /* ranked: severity, then lost time */
	uint32_t *nodes;           /* node index of each chain */
	uint32_t n;
	struct ilog_chain *notes;  /* in detector order */
	uint32_t *note_nodes;
	uint32_t nnotes;
	char **mem;                /* owned strings */
	uint32_t nmem;
};

/*
 * Run every detector over finished statistics (ilog_stats_finish done).
 * 0, or -1 on out of memory (err filled).  Free with ilog_chain_set_free.
 */
int ilog_causal_run(struct ilog_stats *st, struct ilog_chain_set *cs, char *err,
		    size_t errlen);
void ilog_chain_set_free(struct ilog_chain_set *cs);

#endif
