// SPDX-License-Identifier: MIT
/*
 * ingero-correlate: statistics, causal chains, the incident report and the
 * regression gate.  Thin: options, inputs, the analysis driver
 * (lib/analyze/analysis.c: statistics, call sites, causal engine), a
 * renderer from lib/analyze/explain.c or lib/analyze/gate.c, the exit code.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/analysis.h"
#include "ingero/causal.h"
#include "ingero/cli.h"
#include "ingero/explain.h"
#include "ingero/filter.h"
#include "ingero/gate.h"
#include "ingero/html.h"
#include "ingero/io.h"

/*
 * RULES' list of the patterns, from their table (ingero/causal.h): each
 * name, then its rule (after "host: " for a host cause) wrapped at 79
 * columns under itself.
 */
static void usage_patterns(FILE *f)
{
	fprintf(f,
		"  Patterns, as chains name them (host: a cause outside the process's own\n"
		"  GPU work; a %s chain of the same process and time yields to it):\n",
		ilog_patterns[ILOG_PAT_GPU_SLOW].name);
	for (int i = 0; i < ILOG_PAT__COUNT; i++) {
		const struct ilog_pattern_def *p = &ilog_patterns[i];
		char text[512];
		snprintf(text, sizeof(text), "%s%s", p->host ? "host: " : "", p->rule);
		int col = fprintf(f, "  %-18s", p->name);
		for (const char *w = text; *w;) {
			int n = (int)strcspn(w, " ");
			if (col + 1 + n > 79)
				col = fprintf(f, "\n%20s", "") - 1;
			col += fprintf(f, " %.*s", n, w);
			w += n;
			w += strspn(w, " ");
		}
		fputc('\n', f);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"ingero-correlate - explain why a GPU job stalled: statistics and causal chains\n\n"
		"USAGE\n"
		"  ingero-correlate [OPTIONS] [LOG...]            log in, log + chain records out\n"
		"  ingero-correlate --report [OPTIONS] [LOG...]   incident report for humans\n"
		"  ingero-correlate --json [OPTIONS] [LOG...]     JSON Lines for machines\n"
		"  ingero-correlate --html FILE [OPTIONS] [LOG...]  the report as a web page\n"
		"  ingero-correlate --baseline OLD [OPTIONS] NEW  regression gate (CI)\n\n"
		"Reads the LOGs in turn (none or - = stdin).  Without --report, --json or\n"
		"--stats it is a filter: every input record is passed through and the chains\n"
		"are appended as chain records; on a terminal it prints the report instead.\n\n"
		"OPTIONS\n"
		"  -r, --report         the incident report: ranked chains with severity,\n"
		"                       timeline, root cause and fix, then the statistics;\n"
		"                       processes in more than one container: a CONTAINERS\n"
		"                       section groups them by it\n"
		"  -j, --json           JSON Lines: summary (then one container object per\n"
		"                       group, as CONTAINERS), stat rows, per process with\n"
		"                       training steps a steps object, step_site objects\n"
		"                       (calls and time per step of each op and call site)\n"
		"                       and a step object (duration, calls, ops: [site,\n"
		"                       calls, ns]) for the first 1,024 steps and the 16\n"
		"                       slowest (with --windows every step, without ops\n"
		"                       for the others), chain objects\n"
		"      --stats          the statistics table only\n"
		"      --by kernel      launches per kernel instead: count, total, p50, p99,\n"
		"                       max per kernel name (runtime launches are named by\n"
		"                       ingero-symbolize, driver launches by the recorder);\n"
		"                       with --json one object per kernel\n"
		"      --html FILE      the report as one self-contained HTML page in FILE:\n"
		"                       header and verdict, chain cards, a timeline of p50\n"
		"                       and p99 per window (log scale) for the 6 ops with\n"
		"                       the most CUDA time and every op a chain names, the\n"
		"                       chains' intervals shaded, host signals in lanes under\n"
		"                       it, sortable tables, call-path icicles of the 24\n"
		"                       heaviest paths per op; after ingero merge a lane per\n"
		"                       node with its clock offset.  Drawn from the\n"
		"                       per-window statistics, so its size does not grow with\n"
		"                       the log; it loads nothing from the network\n"
		"  -P, --per-process    statistics per process (default: per node and op)\n"
		"  -w, --windows        statistics per time window too\n"
		"      --window DUR     window width (default: adaptive, 128-255 windows);\n"
		"                       --stats-window, ingero-export's name for it, too.\n"
		"                       --window, --pid, --since and --until are the\n"
		"                       analysis's options: ingero-export --format sqlite\n"
		"                       and ingero-mcp RUN.ilog take them too and store or\n"
		"                       serve the chains this finds with them\n"
		"  -b, --baseline OLD   compare LOG against OLD: diff table per op and per\n"
		"                       training step, exit 1 on regression\n"
		"      --threshold PCT  p99/p50 growth that counts as a regression (default 20;\n"
		"                       -t PCT, the old spelling, still works: -t is --type\n"
		"                       in ingero-export, and no percentage is a type name)\n"
		"  -p, --pid PID        analyze only this process (and host events naming it)\n"
		"      --since TIME     analyze only events at or after TIME\n"
		"      --until TIME     analyze only events before TIME\n"
		"                       TIME: RFC 3339, @EPOCH_SECONDS or +DURATION from the start\n"
		"  -o, --output FILE    write here instead of stdout\n"
		"  -q, --quiet          errors only: no progress or warnings\n"
		"  -v, --verbose        also say how many records were read, chains and notes found\n"
		"  -h, --help           this text\n"
		"      --version        print the version\n\n"
		"RULES\n"
		"  Latency quantiles are nearest-rank, within 0.4%% of the sample value.\n"
		"  A call is an outlier above median + 3.5 x 1.4826 x MAD of its op (modified\n"
		"  z-score); a window is anomalous when its outlier share beats the quiet\n"
		"  windows' rate at p < 0.01/windows, and so is a run of windows each above\n"
		"  that rate whose pooled counts beat it at p < 0.01/(windows x (windows+1))\n"
		"  (a slowdown that cuts the call rate leaves each window few calls); for an\n"
		"  op so steady that this threshold is under 5%% over its median, calls count\n"
		"  only 5%% over it (a 1%% drift is no slowdown; so do its stalls); an\n"
		"  anomaly is blamed on the host signal (preemption of the calling threads,\n"
		"  other processes' CUDA calls, page allocations and swap, graph captures)\n"
		"  that is itself an outlier in most of its windows, preemption only if it\n"
		"  also accounts for half the lost time\n"
		"  (and then other processes' calls do not outrank it); otherwise the GPU is\n"
		"  named, not the host - when the median call's growth explains half the\n"
		"  lost time or more; else only the slowest calls grew (LOW, the GPU not\n"
		"  blamed: a few stalled calls are as often a hypervisor's or firmware's).\n"
		"  The culprit of CPU contention is the process whose\n"
		"  off-CPU time rose most - its preemptions of the threads and (format 1.7)\n"
		"  their waits to run after a wakeup while it held the CPU - when the\n"
		"  threads' off-CPU time rose at all, it took at least half of the off-CPU\n"
		"  time others cost the threads in the interval and its rise is a quarter of\n"
		"  theirs; else the host's CPUs were saturated.  Memory counts only when scarce:\n"
		"  swap use grew, or page allocations (an outlier) ran at >= 1%% of the\n"
		"  available memory per second, or used memory (an outlier) left less than\n"
		"  10%% of the total available; a swing of used memory alone is not pressure.\n"
		"  A slowdown with no other cause that began under such a storm (within one\n"
		"  page-allocation aggregate of its start) and outlasted it is the storm's.\n"
		"  Graded: where nothing else explains an anomaly, page allocations that are\n"
		"  an outlier in most of its windows by one process (not the job) that rose\n"
		"  by half the host's rise, its rise over its own rate outside >= 0.25%% of\n"
		"  the memory available before it per second, name that process as the\n"
		"  likely cause (\"Memory storm (likely)\"), with that share and the windows\n"
		"  it covered, one severity step lower; under 0.25%% it is not named, from\n"
		"  1%% it is pressure for certain.\n"
		"  Retransmits (%s): the node's TCP retransmissions an outlier\n"
		"  in most anomalous windows of an NCCL call or a synchronize (or in the\n"
		"  windows that hold most of the time lost), more of them in the interval\n"
		"  than the rest of the run's rate explains (Poisson, p < 0.01, one\n"
		"  retransmission added to the rest), while the process itself moved TCP\n"
		"  bytes; names the flow that retransmitted most\n"
		"  (4-tuple, owner, container) and the retransmits in and outside the\n"
		"  interval.  A slowdown with no other cause that began under retransmits\n"
		"  (within one retransmit aggregate of its start) and outlasted them is\n"
		"  the flow's loss recovery, theirs too: a collective's flow regrows its\n"
		"  congestion window only as it fills it, which takes seconds.  Isolated\n"
		"  stalls of such a call (below) that the node's retransmissions were an\n"
		"  outlier around in most cases are the network's too (a lost segment with\n"
		"  none after it waits for its timeout, 200 ms or more: too few stalls in\n"
		"  any window for an anomaly on a busy host), never periodic spikes.  So\n"
		"  are its stalls too many to be isolated (a mode of their own in more\n"
		"  than 1 call in 20, no interval standing out: a flow lossy all run\n"
		"  long) when one flow retransmitted a segment or more for each of them.\n"
		"  Periodic spikes: an op's outliers outside its anomalies, the group above a\n"
		"  break in their durations (>= 2x and wider than the spread above it; widest\n"
		"  first, then all outliers) whose intervals keep a rhythm (robust CV < 0.5,\n"
		"  start to start and from one's end to the next one's start; a missed or\n"
		"  an extra spike is tolerated); >= 4 spikes, more than the\n"
		"  op's spread predicts (the isolated stalls' test below); not when the\n"
		"  calling threads were off-CPU in the spikes' windows at least as long as\n"
		"  the spikes lost (the scheduler's slices on a loaded host).\n"
		"  Isolated stalls: an op's outliers outside its anomalies, after its cold\n"
		"  calls and with no rhythm of their own - the group above the widest break\n"
		"  (>= 2x, >= 4 calls above it, or all of them above the outlier threshold:\n"
		"  bimodal), else all outliers (heavy tail) - when they are at most 5%% of\n"
		"  its calls and more than a log-normal through its quartiles predicts\n"
		"  (p < 0.01) above the middle of their break (geometric), or above the\n"
		"  outlier threshold for a heavy tail; host or GPU side by the interval\n"
		"  rules on their windows.\n"
		"  A call that never returned (its process died in it, or the recording\n"
		"  ended) is no outlier of these two rules.\n"
		"  Input stalled on disk (%s, from a recorder's blkio and iowait\n"
		"  records): the recorder windows in which a CUDA process's call rate fell\n"
		"  under half its median window's, when the I/O wait of the process and its\n"
		"  descendants (data-loader workers) there exceeds what those calls needed\n"
		"  at its I/O wait per call in the other windows by at least half the time\n"
		"  the GPU work stalled (the missing calls at the median rate); names the\n"
		"  device the job's requests went to, its p50/p99 latency in and outside\n"
		"  the windows, and the process outside the job that moved at least half of\n"
		"  the device's bytes in them, with its container.\n"
		"  Time lost between calls (%s, from a recorder's wait records,\n"
		"  format 1.6): the recorder windows in which a CUDA process's call rate\n"
		"  fell under half its median window's, when the time between its calls (the\n"
		"  windows less its time in calls) exceeds what those calls needed at its\n"
		"  gap per call in the other windows by at least half the time the GPU work\n"
		"  stalled, and by more than its time in calls grew (the calls kept their\n"
		"  latency); not when a material chain of the process that lost at least\n"
		"  half as much covers the windows (disk-stall), nor when its CPU quota\n"
		"  held it for half of it.  Where the time went, each above what the calls\n"
		"  needed of it outside the windows, most first: its calling threads blocked\n"
		"  by class of system call (lock: futex; poll; read: an empty pipe or\n"
		"  socket; write; child; sleep; kernel: uninterruptible, not I/O; other), on\n"
		"  I/O, preempted or waiting for a CPU (as CPU contention counts it, with the\n"
		"  preempter whose own time rose), throttled by its quota; the rest on the\n"
		"  CPU.  The chain names a cause when one reaches half of the growth, else\n"
		"  it says the host does not explain it.\n"
		"  Pageable copies (%s): async copies (cudaMemcpyAsync, cuMemcpy*Async)\n"
		"  whose host side (the source to the device, the destination from it) lies in\n"
		"  no range the process pinned (cudaMallocHost, cudaHostAlloc,\n"
		"  cudaHostRegister and the driver's cuMemHostAlloc, cuMemAllocHost,\n"
		"  cuMemHostRegister; format 1.5 logs) and that took >= 50 us: the host waited\n"
		"  for the transfer; >= 8 of them and most of the pageable copies (a few\n"
		"  stretched by preemption are the CPU's), the lost time is theirs.  Memory\n"
		"  pinned before the recording began looks pageable; its copies return at once.\n"
		"  Hidden synchronizations (%s): copies and memsets of <= 4 KiB that took\n"
		"  >= 50 us (a tensor's .item() or printing, a synchronous cudaMemset) waited\n"
		"  for the GPU's queue; >= 8 of them, the lost time is theirs; the explicit\n"
		"  synchronizes are counted beside them.\n"
		"  Launch-bound (%s): kernel launches (the runtime's, else the driver's;\n"
		"  launches recorded at entry count at the mean of the timed ones) take >= half\n"
		"  the process's wall time over >= 1000 launches while its synchronizes, less\n"
		"  the time its CUDA threads waited for a CPU after waking, take <= a tenth:\n"
		"  the GPU waits for the CPU; the GPU-bound note never sits beside it.\n"
		"  Device memory never freed (%s): the allocations (cudaMalloc, cuMemAlloc\n"
		"  and the async and pool forms) less the frees, replayed per process: the\n"
		"  least outstanding in the last quarter of the run >= 16 MiB above the least\n"
		"  in the first quarter, with >= 8 allocations made since still held (a\n"
		"  spike freed again is no leak); HIGH when an allocation then failed with\n"
		"  out of memory.\n"
		"  Windows that hold such stalls at their rate do not hide them, and are no\n"
		"  anomaly when they cost under 5%% without them.\n"
		"  Materiality: a finding is a chain only when the time it lost, less what\n"
		"  the op's own spread explains (3 standard errors of the interval's calls\n"
		"  drawn from the op's calls outside it), is >= 5%% of the process's CUDA\n"
		"  time AND >= 50 ms; below, it is a statistic, not a chain, and a clean run\n"
		"  reports \"No causal chain\" above its statistics.  A tail that is only a\n"
		"  heavy distribution loses nothing above its spread.\n"
		"  Severity: HIGH when a process was killed or a GPU operation failed, or the\n"
		"  material lost time is >= 25%% of the process's CUDA time AND >= 5%% of the\n"
		"  recording's length AND at least 10 typical calls (the median of the\n"
		"  chain's op in that process); MEDIUM >= 5%%, >= 1%% and the same floor; LOW:\n"
		"  material but a blip in the recording or shorter than a few ordinary calls.\n"
		"  A process is never its own culprit, nor is the recorder or the idle task\n"
		"  (PID 0, a throttled CPU): preemption by its own threads is %s (only\n"
		"  when MEDIUM or worse and at least half of its time off-CPU); a preempter is\n"
		"  named only when its rise is a quarter of the threads' off-CPU excess.\n"
		"  Notes, never chains: what the recorder took (%s: the report's\n"
		"  header, the JSON summary's recording_overhead_ns), a GPU-bound process\n"
		"  (the report's NOTES, \"type\":\"note\" in --json).  >= 3 short-lived processes of\n"
		"  one program (CUDA time < 10%% of the recording) with the same pattern and op\n"
		"  are one chain about the group, graded as its median member (none when\n"
		"  that member lost nothing material).\n"
		"  Steps (STEPS in the report, per process): the marker op is a collective\n"
		"  (the NCCL op with the most calls), else cudaGraphLaunch, else the\n"
		"  dominant synchronize (the synchronizing op with the most time); the calls\n"
		"  from one marker call to the next are a segment, told by the set of ops in\n"
		"  it and its number of calls (the ops alone when counts do not repeat); a\n"
		"  step is k marker calls, the smallest k (1 to 32) whose segments\n"
		"  repeat at lag k nearly as often (within 0.05) as at the best lag (k = 1\n"
		"  when no lag repeats half the time), ending at the phase whose segment is\n"
		"  most unlike the others' (the optimizer's after alike micro-batches), then\n"
		"  whose marker calls take the most time; it runs from that call's return to\n"
		"  the next one's, where\n"
		"  its segment recurs (else every k-th marker call).  Found from the first\n"
		"  marker calls (64 or more), at least 3 steps.  The report lists the calls\n"
		"  and time per step of each op and call site, and the slowest steps with the\n"
		"  calls that took longer than their mean per step.\n"
		"  The gate flags an op when its p99 (or p50) grew beyond --threshold,\n"
		"  significantly more than 1%% (50%%) of new calls exceed the old p99 (p50)\n"
		"  x (1 + threshold), the growth holds through the run (each run's calls cut\n"
		"  into 12 chunks of consecutive calls: the new chunks' quantiles lie above\n"
		"  the old ones', one-sided exact rank-sum test; else \"ok (noise)\"), and its\n"
		"  calls' time beyond the old mean per call is 1%% of the new run or more\n"
		"  (else \"ok (minor)\");\n"
		"  significance is at alpha 0.01 over 2 x the ops compared.  Or when a HIGH\n"
		"  chain is new; or when a program's median step (its process with the most\n"
		"  steps in each run, by name) grew beyond --threshold and beyond both runs'\n"
		"  own spread (3.5 robust sigmas of the medians of chunks of 32 steps): it\n"
		"  names the ops and call sites whose\n"
		"  calls or time per step changed most.\n",
		ilog_patterns[ILOG_PAT_NET_RETRANSMITS].name, ilog_patterns[ILOG_PAT_DISK_STALL].name,
		ilog_patterns[ILOG_PAT_BETWEEN_CALLS].name, ilog_patterns[ILOG_PAT_PAGEABLE_COPY].name, ilog_patterns[ILOG_PAT_HIDDEN_SYNC].name,
		ilog_patterns[ILOG_PAT_LAUNCH_BOUND].name, ilog_patterns[ILOG_PAT_GPU_MEMORY_LEAK].name,
		ilog_patterns[ILOG_PAT_OVERSUBSCRIPTION].name,
		ilog_patterns[ILOG_PAT_RECORDING_OVERHEAD].name);
	usage_patterns(f);
	fprintf(f,
		"\n"
		"EXAMPLES\n"
		"  ingero-correlate --report run.ilog\n"
		"  ingero-correlate run.ilog -o run+chains.ilog\n"
		"  ingero-correlate --html run.html run.ilog\n"
		"  ingero-correlate --json run.ilog | jq 'select(.type==\"chain\") | .root_cause'\n"
		"  ingero-correlate --baseline main.ilog pr.ilog --threshold 10 || echo regressed\n\n"
		"EXIT STATUS\n"
		"  0 ok (gate: no regression), 1 the gate found a regression or a new HIGH\n"
		"  chain, 2 usage error or damaged input\n");
}

struct opts {
	int report, json, stats, per_process, windows;
	const char *out, *baseline, *html;
	struct ilog_analysis_opts ao; /* --window, --pid, --since, --until, --threshold, --by */
	int ninputs;
	char **inputs;
	char *args;
};

struct run {
	uint64_t records;             /* read, filtered or not */
	struct ilog_analysis *a;      /* statistics, chains, call sites, kernels */
	int cut;                      /* stopped short: no output is whole */
};

/*
 * Read the inputs into statistics; with w, pass every record through.
 * Returns 0, or ILOG_EXIT_USAGE after reporting a damaged or unreadable
 * input (what was read before the damage is still accounted) or, with
 * ru->cut set, a failure that stopped the run.
 */
static int read_inputs(struct opts *o, char **inputs, int n, struct run *ru,
		       struct ilog_writer *w, uint32_t *out_node)
{
	ru->cut = 1;
	if (!(ru->a = ilog_analysis_new(&o->ao))) {
		ilog_errorf("out of memory");
		return ILOG_EXIT_USAGE;
	}
	struct ilog_inputs in;
	const struct ilog_record *rec;
	ilog_inputs_start(&in, inputs, n, 1u << 21);
	while (ilog_inputs_next(&in, &rec) > 0) {
		if (w) {
			int wr = ilog_kind_name(rec->kind) ? ilog_writer_put(w, rec)
							   : ilog_writer_put_raw(w, &rec->raw);
			if (wr) {
				ilog_inputs_end(&in);
				ilog_errorf("%s: %s", o->out ? o->out : "(stdout)", ilog_writer_error(w));
				return ILOG_EXIT_USAGE;
			}
			*out_node = rec->node;
		}
		if (ilog_analysis_add(ru->a, rec, in.r)) {
			ilog_inputs_end(&in);
			ilog_errorf("%s: %s", in.name, ilog_analysis_error(ru->a));
			return ILOG_EXIT_USAGE;
		}
	}
	/* damaged ranges skipped: the summaries name them */
	for (uint32_t i = 0; i < in.ndamage; i++)
		if (ilog_analysis_damage(ru->a, in.damage[i].name, &in.damage[i].d)) {
			ilog_inputs_end(&in);
			ilog_errorf("out of memory");
			return ILOG_EXIT_USAGE;
		}
	ilog_inputs_end(&in);
	ru->records = in.total;
	if (ilog_analysis_finish(ru->a, 1)) {
		ilog_errorf("%s", ilog_analysis_error(ru->a));
		return ILOG_EXIT_USAGE;
	}
	struct ilog_stats *st = ilog_analysis_stats(ru->a);
	for (uint32_t i = 0; i < ilog_stats_nwarnings(st); i++)
		ilog_warnf("%s", ilog_stats_warning(st, i));
	ru->cut = 0;
	return in.rc;
}

static void run_free(struct run *ru)
{
	ilog_analysis_free(ru->a);
}

/* --by kernel: the table, or one JSON object per kernel. */
static int kernel_table(struct ilog_buf *b, struct run *ru, int json)
{
	struct ilog_kstat_row *rows;
	int n = ilog_kstats_rows(ilog_analysis_kstats(ru->a), &rows), rc = n < 0;
	uint32_t node = UINT32_MAX;
	for (int i = 0; i < n && !rc; i++) {
		const struct ilog_kstat_row *k = &rows[i];
		if (json) {
			rc = ilog_buf_printf(b, "{\"type\":\"kernel\",\"node_index\":%u,\"kernel\":",
					     k->node) ||
			     ilog_json_str(b, k->kernel, strlen(k->kernel)) ||
			     ilog_buf_printf(b, ",\"launches\":%llu,\"runtime\":%llu,\"driver\":%llu,"
					     "\"total_ns\":%llu,\"p50_ns\":%llu,\"p99_ns\":%llu,"
					     "\"max_ns\":%llu}\n",
					     (unsigned long long)k->launches,
					     (unsigned long long)k->runtime,
					     (unsigned long long)k->driver,
					     (unsigned long long)k->total_ns,
					     (unsigned long long)k->p50_ns,
					     (unsigned long long)k->p99_ns,
					     (unsigned long long)k->max_ns);
			continue;
		}
		if (k->node != node) {
			node = k->node;
			rc = ilog_buf_printf(b, "%sKERNELS (node %u)\n  %10s %10s %10s %10s %10s  %s\n",
					     i ? "\n" : "", node, "LAUNCHES", "TOTAL", "P50", "P99",
					     "MAX", "KERNEL");
		}
		char t[32], p50[32], p99[32], mx[32];
		rc = rc || ilog_buf_printf(b, "  %10llu %10s %10s %10s %10s  %s\n",
					   (unsigned long long)k->launches,
					   ilog_fmt_dur(t, sizeof(t), (double)k->total_ns),
					   ilog_fmt_dur(p50, sizeof(p50), (double)k->p50_ns),
					   ilog_fmt_dur(p99, sizeof(p99), (double)k->p99_ns),
					   ilog_fmt_dur(mx, sizeof(mx), (double)k->max_ns), k->kernel);
	}
	if (!n && !json)
		rc = ilog_buf_printf(b, "no kernel launches\n");
	free(rows);
	return rc ? -1 : 0;
}

/* Append the chains (after a node record where the node changes) and provenance. */
static int put_chains(struct ilog_writer *w, const struct run *ru, uint32_t node, const char *args)
{
	const struct ilog_chain_set *cs = ilog_analysis_chains(ru->a);
	for (uint32_t i = 0; i < cs->n; i++) {
		if (cs->nodes[i] != node) {
			struct ilog_record nr = { .kind = ILOG_K_NODE };
			nr.u.node.node_index = node = cs->nodes[i];
			if (ilog_writer_put(w, &nr))
				return -1;
		}
		struct ilog_record rec = { .kind = ILOG_K_CHAIN };
		rec.u.chain = cs->chains[i];
		if (ilog_writer_put(w, &rec))
			return -1;
	}
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	struct ilog_record pv = { .kind = ILOG_K_PROVENANCE };
	pv.u.provenance = (struct ilog_provenance){
		.real_ns = (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec,
		.tool = ILOG_STR("ingero-correlate"), .version = ILOG_STR(INGERO_VERSION),
		.args = ilog_str_c(args),
	};
	return ilog_writer_put(w, &pv);
}

static int gate(struct opts *o)
{
	if (o->ninputs > 1) {
		ilog_errorf("--baseline takes one new log, not %d", o->ninputs);
		return ILOG_EXIT_USAGE;
	}
	struct run old = { 0 }, cur = { 0 };
	char *oldp[1] = { (char *)o->baseline };
	int rc = read_inputs(o, oldp, 1, &old, NULL, NULL);
	if (!rc)
		rc = read_inputs(o, o->inputs, o->ninputs, &cur, NULL, NULL);
	if (rc) {
		run_free(&old);
		run_free(&cur);
		return rc;
	}
	if (!ilog_analysis_pid_seen(old.a))
		ilog_warnf("--pid: '%u': no record of this process in the baseline", o->ao.filt.pid);
	if (!ilog_analysis_pid_seen(cur.a))
		ilog_warnf("--pid: '%u': no record of this process in the new log", o->ao.filt.pid);
	struct ilog_gate g;
	struct ilog_buf b = { 0 };
	double threshold = o->ao.threshold > 0 ? o->ao.threshold : ILOG_GATE_THRESHOLD;
	if (ilog_gate_compare(ilog_analysis_stats(old.a), ilog_analysis_chains(old.a),
			      ilog_analysis_stats(cur.a), ilog_analysis_chains(cur.a), threshold,
			      o->per_process, &g) ||
	    ilog_gate_steps(&g, ilog_analysis_stats(old.a), ilog_analysis_sites(old.a),
			    ilog_analysis_stats(cur.a), ilog_analysis_sites(cur.a))) {
		ilog_errorf("out of memory");
		ilog_gate_free(&g);
		run_free(&old);
		run_free(&cur);
		return ILOG_EXIT_USAGE;
	}
	if (o->json)
		rc = ilog_gate_json(&b, &g);
	else
		rc = ilog_gate_text(&b, &g, o->baseline, ilog_in_name(o->ninputs ? o->inputs[0] : "-"));
	struct ilog_out dst;
	int opened = !ilog_out_check(o->out, oldp, 1) &&
		     !ilog_out_open(&dst, o->out, o->inputs, o->ninputs, NULL);
	if (rc || !opened || ilog_write_all(dst.fd, b.p, b.len)) {
		if (opened)
			ilog_errorf("%s: write error", o->out ? o->out : "(stdout)");
		rc = ILOG_EXIT_USAGE;
	} else {
		rc = g.regressed || g.new_high || g.steps_regressed ? ILOG_EXIT_FINDING : ILOG_EXIT_OK;
	}
	if (opened && ilog_out_close(&dst, rc != ILOG_EXIT_USAGE))
		rc = ILOG_EXIT_USAGE;
	ilog_buf_free(&b);
	ilog_gate_free(&g);
	run_free(&old);
	run_free(&cur);
	return rc;
}

static int analyze(struct opts *o)
{
	struct ilog_out dst;
	if (ilog_out_open(&dst, o->html ? o->html : o->out, o->inputs, o->ninputs, NULL))
		return ILOG_EXIT_USAGE;
	int fd = dst.fd;
	int filter = !o->report && !o->json && !o->stats && !o->html && !o->ao.kernels;
	if (filter && !o->out && isatty(fd))
		filter = 0, o->report = 1; /* humans at a terminal get the report */
	struct ilog_writer *w = NULL;
	char err[256];
	if (filter) {
		struct ilog_writer_opts wo = { 0 };
		if (!(w = ilog_writer_open(fd, &wo, err, sizeof(err)))) {
			ilog_errorf("%s", err);
			ilog_out_close(&dst, 0);
			return ILOG_EXIT_USAGE;
		}
	}
	struct run ru = { 0 };
	uint32_t node = 0;
	int rc = read_inputs(o, o->inputs, o->ninputs, &ru, w, &node);
	if (!ru.a || (rc && !ilog_stats_nnodes(ilog_analysis_stats(ru.a)) && !w)) {
		run_free(&ru);
		ilog_writer_close(w, err, sizeof(err));
		ilog_out_close(&dst, 0);
		return rc ? rc : ILOG_EXIT_USAGE;
	}
	struct ilog_buf b = { 0 };
	struct ilog_stats *st = ilog_analysis_stats(ru.a);
	const struct ilog_chain_set *cs = ilog_analysis_chains(ru.a);
	struct ilog_explain_opts eo = {
		.per_process = o->per_process, .windows = o->windows, .max_timeline = 12,
		.name = o->ninputs == 1 ? o->inputs[0] : NULL, .sites = ilog_analysis_sites(ru.a),
	};
	int wrc = 0, whole = !ru.cut; /* a damaged input still gives a whole output */
	if (w) {
		/* the writer's message is read before close frees it */
		int bad = put_chains(w, &ru, node, o->args);
		if (bad)
			snprintf(err, sizeof(err), "%s",
				 ilog_writer_error(w) ? ilog_writer_error(w) : "out of memory");
		if (ilog_writer_close(w, bad ? NULL : err, sizeof(err)))
			bad = 1;
		if (bad) {
			ilog_errorf("%s: %s", o->out ? o->out : "(stdout)", err);
			rc = ILOG_EXIT_USAGE;
			whole = 0;
		}
		w = NULL;
	} else {
		struct ilog_html_opts ho = { .name = eo.name, .sites = eo.sites };
		if (o->ao.kernels)
			wrc = kernel_table(&b, &ru, o->json);
		else if (o->html)
			wrc = ilog_html_report(&b, st, cs, &ho);
		else if (o->json)
			wrc = ilog_explain_json(&b, st, cs, &eo);
		else if (o->stats)
			wrc = ilog_explain_stats(&b, st, &eo);
		else
			wrc = ilog_explain_report(&b, st, cs, &eo);
		if (wrc || ilog_write_all(fd, b.p, b.len)) {
			ilog_errorf("%s: write error", o->html ? o->html : o->out ? o->out : "(stdout)");
			rc = ILOG_EXIT_USAGE;
			whole = 0;
		}
	}
	if (ilog_out_close(&dst, whole))
		rc = ILOG_EXIT_USAGE;
	if (!ru.cut && !ilog_analysis_pid_seen(ru.a))
		ilog_warnf("--pid: '%u': no record of this process in the input", o->ao.filt.pid);
	if (ILOG_VERBOSE(1) && !ru.cut)
		fprintf(stderr, "%s: %llu records read, %u chain%s found, %u note%s\n", ilog_prog,
			(unsigned long long)ru.records, cs->n, cs->n == 1 ? "" : "s", cs->nnotes,
			cs->nnotes == 1 ? "" : "s");
	ilog_buf_free(&b);
	run_free(&ru);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "report", no_argument, 0, 'r' }, { "json", no_argument, 0, 'j' },
		{ "stats", no_argument, 0, 'S' }, { "per-process", no_argument, 0, 'P' },
		{ "windows", no_argument, 0, 'w' }, { "baseline", required_argument, 0, 'b' },
		{ "threshold", required_argument, 0, ILOG_AOPT_THRESHOLD },
		{ "output", required_argument, 0, 'o' },
		{ "html", required_argument, 0, 'H' }, { "by", required_argument, 0, 'K' },
		ILOG_ANALYSIS_LONG, ILOG_COMMON_LONG, { 0 },
	};
	struct opts o = { .ao = { .callsites = 1 } };
	char err[256];
	int c, rc;
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "rjPwb:t:p:o:" ILOG_COMMON_SHORT, lo, NULL)) != -1) {
		switch (c) {
		case 'r': o.report = 1; break;
		case 'j': o.json = 1; break;
		case 'S': o.stats = 1; break;
		case 'H': o.html = optarg; break;
		case 'K':
			if (strcmp(optarg, "kernel")) {
				ilog_errorf("--by: want kernel, got '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			o.ao.kernels = 1;
			break;
		case 'P': o.per_process = 1; break;
		case 'w': o.windows = 1; break;
		case 'b': o.baseline = optarg; break;
		case 't':
			/* -t: the old spelling of --threshold, kept because a
			 * percentage cannot be mistaken for ingero-export's -t
			 * (--type) list; a type name gets told so */
			if (ilog_analysis_opt(&o.ao, ILOG_AOPT_THRESHOLD, optarg, err, sizeof(err)) < 0) {
				if (ilog_kind_from_name(optarg) >= 0)
					ilog_errorf("-t: not a percentage '%s': -t is --threshold here "
						    "(record types are ingero-export -t)", optarg);
				else
					ilog_errorf("%s", err);
				return ILOG_EXIT_USAGE;
			}
			break;
		case 'o': o.out = optarg; break;
		default:
			/* --window, --pid, --since, --until, --threshold: the
			 * analysis's own (ingero/analysis.h) */
			if ((rc = ilog_analysis_opt(&o.ao, c, optarg, err, sizeof(err))) < 0) {
				ilog_errorf("%s", err);
				return ILOG_EXIT_USAGE;
			}
			if (!rc && (rc = ilog_opt_common(c, usage)) >= 0)
				return rc;
		}
	}
	if (o.report + o.json + o.stats + !!o.html > 1) {
		ilog_errorf("choose one of --report, --json, --stats and --html");
		return ILOG_EXIT_USAGE;
	}
	if (o.html && o.out) {
		ilog_errorf("--html names its own output file (no -o)");
		return ILOG_EXIT_USAGE;
	}
	if (o.html && o.baseline) {
		ilog_errorf("--baseline prints its own diff table (no --html)");
		return ILOG_EXIT_USAGE;
	}
	if (o.baseline && (o.report || o.stats)) {
		ilog_errorf("--baseline prints its own diff table (use --json for machines)");
		return ILOG_EXIT_USAGE;
	}
	o.ninputs = argc - optind;
	o.inputs = argv + optind;
	/* provenance: the arguments as given */
	o.args = ilog_join_args(argc - 1, argv + 1);
	rc = o.baseline ? gate(&o) : analyze(&o);
	free(o.args);
	return ilog_finish_stdout(rc);
}
