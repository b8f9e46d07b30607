/* SPDX-License-Identifier: MIT */
/*
 * Synthetic scenario logs: each scenario simulates a training process (and
 * the other processes of the node) with jittered call durations, host
 * events and system snapshots, and injects one causal pattern at random
 * times.  `ingero demo --no-bpf` shows them where eBPF cannot run; tests
 * use them to check that each pattern is explained.  Deterministic for a
 * seed.  The simulation is documented per scenario in lib/scenario.c.
 */
#ifndef ILOG_SCENARIO_H
#define ILOG_SCENARIO_H

#include "ingero/ilog.h"

struct ilog_scenario_opts {
	const char *name;     /* see ilog_scenario_names() */
	uint64_t seed;        /* 0 = 1 */
	double seconds;       /* run length; 0 = the scenario's default */
	double sync_factor;   /* GPU work per step multiplied by this (0 = 1) */
	const char *node;     /* node name (default "demo-node") */
	uint64_t mono_ns;     /* start, CLOCK_MONOTONIC (0 = 1000 s) */
	uint64_t real_ns;     /* its wall time (0 = a fixed date) */
};

/*
 * The isolated-stalls scenario's stall times, recorded (workload.c) and
 * synthesized alike: ILOG_SCENARIO_STALLS fractions of the run in [0.05,
 * 0.95], ascending - a uniform draw from a fixed seed, redrawn until no two
 * are closer than 1/40 of the run, so that no analysis window of the op
 * (~20 calls, < 0.2 s of a 10 s run) holds two: two stalls in one window
 * are an anomalous interval, not isolated stalls.  This seed's draw has
 * gaps as irregular as a Poisson process's (robust CV 0.86); a draw whose
 * gaps were alike would be a rhythm, which the periodic-spike chain claims.
 */
#define ILOG_SCENARIO_STALLS 12
void ilog_scenario_stall_times(double *frac);

/* NULL-terminated list of scenario names. */
const char *const *ilog_scenario_names(void);
/* One line describing a scenario, NULL if unknown. */
const char *ilog_scenario_help(const char *name);
/*
 * Write the scenario's log (header first) to w.  0, or -1 with err filled
 * (unknown scenario, out of memory, write error).
 */
int ilog_scenario_write(struct ilog_writer *w, const struct ilog_scenario_opts *o, char *err,
			size_t errlen);

#endif
