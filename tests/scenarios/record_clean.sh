#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
#   record_clean.sh SEED [MAX_SECONDS]
#
# Records the clean workload of SEED (cleanload.sh) with the real recorder,
# correlates it and prints one line:
#
#   seed S: H high, M medium, L low (patterns) load A psi P% steal S; ok|ALARM|BAD ...
#
# ok: no HIGH or MEDIUM chain, no chain whose culprit is the recorder or
# the process itself, no chain about PID 0 or an empty comm, at most one
# recording-overhead note per node.  ALARM: a HIGH or MEDIUM chain (a false
# alarm, the workload being clean), with the chains on the following
# lines.  "ALARM busy" when every alarm is about CPU contention the records
# prove (the host was busy, which is real, not a false alarm): a culprit
# that is not one of the generator's processes (a neighbour on a shared
# machine), or whose preemptions of the victim's threads in the chain's
# interval, recomputed from the exported switch records, took at least a
# tenth of the time the chain says was lost; or, with no culprit named
# (a saturated host), the recorder's snapshots in the interval show PSI
# "cpu some" (share of time a task waited for a CPU) of 20% or more, or
# the victim's threads waited for a CPU in the interval, after wakeups or
# preempted while runnable, at least half as long as the chain says was lost
# (wakeup and switch records; tests/scenarios/busy.jq).  BAD:
# a self, recorder, PID 0 or empty-comm chain, or two overhead notes on a
# node.  Exit 0 ok, 1 ALARM or BAD, 2 the recording failed.  The line also
# gives the load average at the start, the mean PSI cpu some of the
# recording and its steal (mean and worst snapshot); each alarm's metrics
# follow its chain.
# Files: clean-SEED.ilog, clean-SEED.jsonl, clean-SEED.plan in the
# current directory (removed when ok unless KEEP=1).
set -uo pipefail
seed=$1
max_s=${2:-20}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
log=clean-$seed.ilog
load=$(cut -d' ' -f1 /proc/loadavg)
export INGERO_RECORD_LOCK=${INGERO_RECORD_LOCK:-$PWD/record.lock}
if ! ingero-record -q -o "$log" -- "$here/cleanload.sh" "$seed" "$max_s" >"clean-$seed.plan" 2>"clean-$seed.err"; then
	echo "seed $seed: recording failed: $(tail -n 3 "clean-$seed.err" | tr '\n' ' ')"
	exit 2
fi
ingero-correlate --json "$log" >"clean-$seed.jsonl" || { echo "seed $seed: ingero-correlate failed"; exit 2; }
ingero-export "$log" >"clean-$seed.recs" || { echo "seed $seed: ingero-export failed"; exit 2; }
psi=$(jq -s '[.[] | select(.type == "snapshot" and .psi_cpu_some != null) | .psi_cpu_some] | if length > 0 then add / length else 0 end | floor' "clean-$seed.recs")
# the hypervisor's take of the CPUs (steal_pct), mean and worst snapshot
steal=$(jq -rs '[.[] | select(.type == "snapshot" and .steal_pct != null) | .steal_pct] | if length > 0 then "\(add / length | . * 10 | floor / 10)% (max \(max | . * 10 | floor / 10)%)" else "-" end' "clean-$seed.recs")
jq -rs -L "$here" --arg seed "$seed" --arg load "$load" --argjson psi "${psi:-0}" --arg steal "$steal" --slurpfile r "clean-$seed.recs" '
  include "busy";
  [.[] | select(.type == "chain")] as $c |
  ["workload", "cleanload.sh", "bash", "cksum", "head", "dd", "sleep", "env"] as $mine |
  [$r[] | cpu_wait_records] as $sw |
  [$r[] | select(.type == "snapshot" and .psi_cpu_some != null)] as $snaps |
  def proven: ((.culprit_pid // 0) != 0 and (.culprit_comm as $n | $mine | index($n) | not) and
                (.pattern == "cpu-contention" or .pattern == "oversubscription")) or
              proven_busy($sw; $snaps);
  ($c | map(select(.severity == "HIGH" or .severity == "MEDIUM"))) as $alarm |
  ($c | map(select(.pid == 0 or .comm == "" or
                   (.culprit_pid != 0 and (.culprit_pid == .pid or .culprit_comm == "ingero-record" or .culprit_comm == ""))))) as $bad |
  ([.[] | select(.type == "note" and .pattern == "recording-overhead") | .node] | group_by(.) | map(length) | max // 0) as $over |
  "seed \($seed): \($c | map(select(.severity == "HIGH")) | length) high, \($c | map(select(.severity == "MEDIUM")) | length) medium, \($c | map(select(.severity == "LOW")) | length) low (\($c | map(.pattern) | unique | join(","))) load \($load) psi \($psi)% steal \($steal); " +
  (if ($bad | length) > 0 or $over > 1 then "BAD"
   elif ($alarm | length) > 0 then "ALARM" + (if all($alarm[]; proven) then " busy" else "" end)
   else "ok" end),
  (($alarm + $bad)[] | "  \(.severity) \(.pattern) pid \(.pid) culprit \(.culprit_comm) (\(.culprit_pid)) cause \(.metrics.cause // "-") side \(.metrics.side // "-") lost \(.lost_ns): \(.root_cause[0:600])",
   "    metrics \(.metrics | tostring | .[0:600])")
' "clean-$seed.jsonl" | tee "clean-$seed.out" || { echo "seed $seed: jq failed"; exit 2; }
if head -n 1 "clean-$seed.out" | grep -q '; ok$'; then
	[[ ${KEEP:-} == 1 ]] || rm -f "$log" "clean-$seed.jsonl" "clean-$seed.recs" "clean-$seed.plan" "clean-$seed.err" "clean-$seed.out"
	exit 0
fi
exit 1
