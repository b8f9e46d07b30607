// SPDX-License-Identifier: MIT
/*
 * The detectors the causal engine runs (causal.c), one line each.  Each
 * lives in lib/analyze/detect_NAME.c, which ends in its descriptor
 *
 *	const struct causal_detector causal_detector_NAME = { "NAME", SCOPE, fn };
 *
 * Within a scope the engine runs them in the order of these lines, which
 * is the order their candidates are created in: it settles ties in the
 * ranking and which of two equally costly overlapping chains is kept, so
 * reordering lines can change a report.  A new detector goes at the end of
 * its scope - for a process detector before gpu_bound, which reports only
 * when nothing that ran before it found a cause.
 */
#include "causal_int.h"

#define DETECTORS(X)                                                        \
	X(failures)    /* CAUSAL_SERIES_ALL: CUDA errors, GPU out of memory */ \
	X(interval)    /* CAUSAL_SERIES_ANALYZED: anomalous intervals */       \
	X(periodic)    /* CAUSAL_SERIES_ANALYZED: periodic spikes */           \
	X(isolated)    /* CAUSAL_SERIES_ANALYZED: isolated stalls, no rhythm */ \
	X(cold_start)  /* CAUSAL_PROCESS: slow first calls */                  \
	X(memcpy)      /* CAUSAL_PROCESS: memcpy-bound */                      \
	X(graphs)      /* CAUSAL_PROCESS: graph warm-up and re-capture */      \
	X(cpu_run)     /* CAUSAL_PROCESS: preemption over the whole run */     \
	X(oversub)     /* CAUSAL_PROCESS: own threads outnumber the CPUs */    \
	X(disk)        /* CAUSAL_PROCESS: the input pipeline stalls on disk */ \
	X(throttle)    /* CAUSAL_PROCESS: its cgroup's CPU quota throttles it */ \
	X(pageable)    /* CAUSAL_PROCESS: async copies from pageable memory */ \
	X(hidden_sync) /* CAUSAL_PROCESS: small copies that wait for the GPU */ \
	X(devmem)      /* CAUSAL_PROCESS: device memory never freed */         \
	X(launch_bound) /* CAUSAL_PROCESS: launches, not the GPU, set the pace */ \
	X(between)     /* CAUSAL_PROCESS: time lost between calls */          \
	X(gpu_bound)   /* CAUSAL_PROCESS: waits on the GPU (informational) */  \
	X(oom_kill)    /* CAUSAL_NODE: the kernel OOM killer */                \
	X(overhead)    /* CAUSAL_NODE: the recorder's cost (a note, last) */  \
	X(ranks)       /* CAUSAL_JOB: straggler, hung collective, desync */

#define DECLARE(name) extern const struct causal_detector causal_detector_##name;
DETECTORS(DECLARE)

#define ENTRY(name) &causal_detector_##name,
const struct causal_detector *const causal_detectors[] = { DETECTORS(ENTRY) };
const uint32_t causal_ndetectors = sizeof(causal_detectors) / sizeof(causal_detectors[0]);
