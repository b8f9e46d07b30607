/* SPDX-License-Identifier: MIT */
/*
 * Internal: the constants of the analysis (the causal engine, its
 * detectors and the regression gate), private to lib/analyze.  Not
 * installed; what they mean to a user is in `ingero-correlate --help`,
 * which quotes them.
 *
 * Rules (all thresholds come from the data; the few constants below are
 * statistical conventions or severity policy):
 *   - a call is an outlier of its (node, pid, op) series when its duration
 *     exceeds median + 3.5 * 1.4826 * MAD (modified z-score > 3.5,
 *     Iglewicz & Hoaglin), the MAD floored at the histogram's resolution;
 *   - an analysis window (whole statistics windows, enough for 20 calls of
 *     the op on average) is anomalous when its share of outliers is above
 *     the rate of the quiet windows with a Chernoff-bounded p-value below
 *     0.01 / windows (Bonferroni); neighbouring anomalous windows form an
 *     interval, compared with the op's calls outside all its intervals;
 *   - an interval is blamed on the host signal (preemption of the calling
 *     threads, other processes' CUDA calls, memory pressure, graph
 *     captures) that is a robust outlier in the majority of its anomalous
 *     windows (+-1 window); preemption must also account for half the lost
 *     time.  With no such signal the chain says the GPU was slow and the
 *     host is not blamed;
 *   - memory pressure needs absolute evidence of scarcity in a window: swap
 *     use grew; or page allocations are an outlier and ran at >= 1% of the
 *     available memory per second (4 KiB pages; they would take all of it
 *     within 100 s); or used memory is an outlier and available memory is
 *     below 10% of the total (where userspace OOM daemons such as earlyoom
 *     start to act).  A swing of used memory alone is not pressure;
 *   - graded memory evidence: in an interval that no other signal
 *     explains, page allocations that are an outlier in the majority of its
 *     anomalous windows, one process (not the job) rising by half the
 *     machine's rise, its rise over its own rate outside the interval
 *     ILOG_MEM_LIKELY (0.25%) of the available memory (before the
 *     interval) per second or more, name that process as the
 *     likely cause, with that share of available memory per second and the
 *     windows it covered, one severity step below what the lost time gives
 *     (never raised by scarcity); below 0.25% it is not named;
 *   - periodic spikes: the op's outliers outside its anomalies, the group
 *     above a break in their sorted durations (>= 2x, wider than the spread
 *     of the bulk above it; widest first, then all outliers) whose gaps keep
 *     a rhythm (robust CV < ILOG_PERIODIC_RCV, so one or two irregular gaps
 *     do not count); at least 4 spikes;
 *   - isolated stalls: the op's outliers outside its anomalies, after its
 *     cold calls and with no rhythm: the group above the widest break in
 *     their durations (the outlier threshold counted as the lowest; a
 *     "bimodal" op), else all of them (a "heavy tail"), taken when it is at
 *     most ILOG_ISOLATED_SHARE of the calls and significantly more calls
 *     (Chernoff, p < 0.01 / groups tried / the process's series) than a
 *     log-normal through the quartiles of the op's durations puts above its
 *     lower edge - so jitter, however wide, is not a stall; the side (host
 *     or GPU) by the interval rules, applied to the stalls' windows;
 *   - materiality: a finding is a chain only when the time it lost, less
 *     what the op's own spread explains (the interval's calls drawn from
 *     the op's calls outside it would exceed their mean by up to
 *     ILOG_SPREAD_Z standard errors), is >= ILOG_MATERIAL_SHARE of the
 *     process's CUDA wall time AND >= ILOG_MATERIAL_NS; below, it is a
 *     statistic, not a chain.  A tail that is only a heavy distribution
 *     loses nothing above its spread;
 *   - severity: HIGH when a process was killed or a GPU operation failed,
 *     or the material lost time is >= 25% of the process's CUDA wall time
 *     AND >= 5% of the recording's length AND at least
 *     ILOG_SEV_FLOOR_CALLS typical calls of the op (its median in that
 *     process); MEDIUM >= 5%, >= 1% and the same floor; LOW: material,
 *     short of MEDIUM's span or floor (causal_grade in
 *     lib/analyze/causal_int.h is the one rule);
 *   - notes, never chains: a GPU-bound process, what recording cost.
 */
#ifndef ILOG_ANALYZE_THRESHOLDS_H
#define ILOG_ANALYZE_THRESHOLDS_H

#define ILOG_Z_OUTLIER 3.5      /* modified z-score outlier rule */
#define ILOG_FAMILY_ALPHA 0.01  /* family-wise error rate over windows */
#define ILOG_COVERAGE 0.5       /* majority of anomalous windows */
#define ILOG_NET_ALPHA 0.01     /* an interval's retransmissions: Poisson tail against the rest (+1) */
#define ILOG_SEV_HIGH_IMPACT 0.25
#define ILOG_SEV_MEDIUM_IMPACT 0.05
#define ILOG_MATERIAL_SHARE 0.05   /* material: share of the process's CUDA wall time */
#define ILOG_MATERIAL_NS 50000000.0 /* material: absolute lost time (50 ms) */
#define ILOG_GATE_MATERIAL 0.01    /* gate: an op's growth costs >= 1% of the new run's time */
#define ILOG_SPREAD_Z 3.0          /* standard errors of the interval's mean the spread explains */
#define ILOG_SLOW_TYPICAL 0.5      /* gpu-slow: the median call's growth explains this share of the loss, or LOW */
#define ILOG_SEV_HIGH_SPAN 0.05   /* HIGH: share of the recording's length */
#define ILOG_SEV_MEDIUM_SPAN 0.01 /* MEDIUM: share of the recording's length */
#define ILOG_SEV_FLOOR_CALLS 10   /* HIGH/MEDIUM: lost >= this many typical calls */
#define ILOG_GROUP_MIN 3          /* alike short-lived processes summarized as one */
#define ILOG_GROUP_SHORT 0.10     /* short-lived: CUDA wall time < this share of the recording */
#define ILOG_MIN_SERIES 20      /* calls needed to judge a series' windows */
#define ILOG_WINDOW_CALLS 20    /* calls per analysis window, on average */
#define ILOG_DRIFT_MIN 0.05     /* intervals: calls count as slower only this far over the median */
#define ILOG_PERIODIC_RCV 0.5   /* robust CV of spike intervals; Poisson ~1.0 */
#define ILOG_SPIKE_BREAK 2.0    /* spikes are >= 2x slower than the other outliers */
#define ILOG_ISOLATED_SHARE 0.05 /* isolated stalls: at most 1 call in 20 */
#define ILOG_MEM_CHURN 0.01     /* page allocations per second, share of available */
#define ILOG_MEM_LIKELY 0.0025  /* ... from which a storm is named as likely (graded) */
#define ILOG_MEM_SCARCE 0.10    /* available memory below this share of the total */
#define ILOG_MEM_PSI 1.0        /* memory PSI (some, %) that counts as scarcity */
#define ILOG_SAT_PSI 20.0       /* CPUs saturated: PSI cpu some (%), mean of the snapshots */
#define ILOG_SAT_CPU 90.0       /* ... or CPU busy (%), mean of the snapshots */
#define ILOG_SAT_RISE 1.5       /* an interval's PSI over the run's: saturated there */
#define ILOG_PAGE_BYTES 4096.0  /* base page of a page_alloc count (SPEC: 2^order) */
#define ILOG_DISK_RATE_DROP 0.5 /* disk-stall: windows under this share of the median call rate */
#define ILOG_DISK_IO_SHARE 0.5  /* ... whose I/O-wait rise is at least this share of the stall */
#define ILOG_DISK_DOMINANT 0.5  /* ... a process moving this share of the device's bytes is named */
#define ILOG_BETWEEN_RATE_DROP 0.5 /* between-calls: windows under this share of the median call rate */
#define ILOG_BETWEEN_SHARE 0.5  /* ... whose gaps between calls grew by this share of the stall */
/* pageable-copy: an async copy from pageable host memory that returned
 * after this long blocked the host (an async copy from pinned memory
 * returns in microseconds); at least ILOG_PAGEABLE_MIN_CALLS of them */
#define ILOG_PAGEABLE_BLOCK_NS 50000
#define ILOG_PAGEABLE_MIN_CALLS 8
/* hidden-sync: a copy or memset of at most this many bytes that took
 * ILOG_SYNC_WAIT_NS or longer waited for the device's queue (.item(), a
 * printed tensor); at least ILOG_SYNC_MIN_CALLS of them */
#define ILOG_SMALL_SYNC_BYTES 4096
#define ILOG_SYNC_WAIT_NS 50000
#define ILOG_SYNC_MIN_CALLS 8
/* gpu-memory-leak: the least outstanding device memory of the last
 * quarter at least this far above the first quarter's, and as many bytes
 * in at least ILOG_LEAK_MIN_ALLOCS allocations made since still held */
#define ILOG_LEAK_MIN_BYTES (16ull << 20)
#define ILOG_LEAK_MIN_ALLOCS 8
#define ILOG_LAUNCH_BOUND_SHARE 0.5 /* launch-bound: kernel launches take this share of the wall time */
#define ILOG_LAUNCH_BOUND_SYNC 0.1  /* ... while synchronizes take at most this share */
#define ILOG_LAUNCH_BOUND_MIN 1000  /* ... over at least this many launches */

#endif
