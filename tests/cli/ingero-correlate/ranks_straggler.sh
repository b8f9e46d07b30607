# SPDX-License-Identifier: MIT
# A simulated four-rank job (tests/tools/job) whose rank 2 arrives at every
# all-reduce about 6 ms late, preempted by PID 812 (backup) for most of it:
# the only chain is the straggler's, naming rank 2 (PID 4002) with backup as
# its culprit; no chain on the three ranks that waited.  The chain's numbers
# (how often rank 2 was last, its median and p99 lateness behind the last
# but one rank, the time each other rank waited) are recomputed from the
# exported records.
set -uo pipefail
. "$INGERO_TESTS/cli/ingero-correlate/ranks.bash"
"$INGERO_OUT"/tests/tools/job -o job.ilog --steps 300 --straggler 2:6ms || exit 1
ingero-correlate --json job.ilog >out.jsonl || exit 1
chains out.jsonl >chains.jsonl
jq -s -e 'length == 1 and .[0].pattern == "straggler" and .[0].pid == 4002 and
	.[0].culprit_pid == 812 and .[0].culprit_comm == "backup" and .[0].severity == "HIGH" and
	.[0].metrics.rank == 2 and .[0].metrics.nranks == 4' chains.jsonl >/dev/null ||
	{ echo "chains:"; cat chains.jsonl; exit 1; } >&2
ingero-export --format jsonl job.ilog >rec.jsonl || exit 1
arrivals rec.jsonl >arr.jsonl
# per collective: who was last and by how much behind the last but one
jq -s -c '[.[] | {last: .[1][-1][1], gap: (.[1][-1][0] - .[1][-2][0])}]
	| {n: length, last2: map(select(.last == 4002)) | length,
	   gaps: (map(select(.last == 4002) | .gap) | sort)}
	| . + {p50: .gaps[(.last2 - 1) / 2 | floor], p99: .gaps[(.last2 - 1) * 99 / 100 | floor],
	       lost: (.gaps | add)}' arr.jsonl >want.json
jq -n -e --slurpfile w want.json --slurpfile c chains.jsonl '
	$w[0] as $w | $c[0].metrics as $m
	| $m.collectives == $w.n and $m.last_count == $w.last2 and
	  $m.lateness_p50_ns == $w.p50 and $m.lateness_p99_ns == $w.p99 and
	  $c[0].lost_ns == $w.lost and $m.job_wait_ns == 3 * $w.lost' >/dev/null ||
	{ echo "want $(cat want.json | jq -c 'del(.gaps)'), chain $(jq -c .metrics chains.jsonl)"; exit 1; } >&2
