/* SPDX-License-Identifier: MIT */
/*
 * ingero-demo: the orchestrator (main.c) records a scenario workload
 * (workload.c, the same binary run with --workload) under ingero-record
 * and explains it with ingero-correlate.
 */
#ifndef INGERO_DEMO_H
#define INGERO_DEMO_H

#include <stddef.h>
#include "ingero/causal.h"

#define DEMO_NONE (-1) /* a scenario that stages no pattern: nothing wrong */

struct demo_scenario {
	const char *name;
	int expect; /* the chain pattern the scenario stages (enum ilog_pattern), or DEMO_NONE */
	double seconds;
	const char *const copies[4]; /* library copies it loads, NULL-terminated */
	/* a process of the host, not of the job, started by the orchestrator
	 * (not recorded as a target): "storm" or "steady" (allocators), "hog"
	 * or "quiet" (a neighbour's CPU load), NULL for none */
	const char *sidecar;
	int job_container; /* the job runs in a container of its own */
	int ranks;         /* a multi-rank job of this many processes (demo_rank) */
};

/* Scenarios that run for real on the fake CUDA libraries. */
extern const struct demo_scenario demo_scenarios[];
const struct demo_scenario *demo_find(const char *name);
/* The name of pattern p (enum ilog_pattern), "" for DEMO_NONE. */
const char *demo_pattern(int p);

/* The hidden --workload mode: run scenario s for seconds, loading the fake
 * runtime copies from lib_dir/<copy>/libcudart.so.13, the synchronize's
 * latency scaled by factor.  Returns an exit code. */
int demo_workload(const struct demo_scenario *s, double seconds, const char *lib_dir,
		  double factor);
/* The hidden --rank mode: rank `rank` of scenario s's job, its files in
 * work (workload.c says which).  Returns an exit code. */
int demo_rank(const struct demo_scenario *s, int rank, double seconds, const char *work,
	      double factor);
/* The helpers (--child KIND START END CPU SCENARIO LIBDIR). */
int demo_child(int argc, char **argv);
/* The sidecar (--sidecar KIND WORKDIR): waits for the workload's timeline
 * in WORKDIR/t0, then allocates as KIND says.  Returns an exit code. */
int demo_sidecar(const char *kind, const char *work);

#endif
