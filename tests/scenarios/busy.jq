# SPDX-License-Identifier: MIT
#
# proven_busy: whether a chain (.) is CPU contention the exported records
# prove - the host was busy, which is real, not a false alarm of a clean
# workload.  $sw: the log's switch records with value 0 (preemptions:
# a thread switched out runnable) and its wakeup records (dur_ns: woken to
# running, the wait for a CPU), $snaps: its snapshots with PSI.
#   - cpu-contention or oversubscription, or isolated stalls whose cause
#     is CPU contention (metrics.cause: calls preempted at random times),
#     or time lost between calls while preempted (metrics.cause), and
#   - a culprit named: its preemptions of the chain's process in the
#     chain's interval, and the waits for a CPU it held there (wakeups
#     whose value, the occupant, is the culprit: format 1.7), took at
#     least a tenth of the time the chain says was lost (it is there, and
#     it took CPU time that counts); or
#   - no culprit (a saturated host): the snapshots in the interval (all of
#     them when none falls inside) average PSI "cpu some" >= 20%, or the
#     chain's process's threads waited for a CPU in the interval at least
#     half as long as the chain says was lost: woken and not yet running
#     (wakeups), or preempted while runnable (switches) - both are time on
#     a run queue, the two parts of the off-CPU time the engine weighs.
#     Half, because the records undercount the waits (a wakeup that waited
#     less than --wakeup-min, 50 us, is not recorded) and half is the
#     engine's own bar for blaming the CPU, here recomputed from the raw
#     records; a clean workload's chain with no such waits stays an alarm.
def proven_busy($sw; $snaps):
  . as $ch |
  (.pattern == "cpu-contention" or .pattern == "oversubscription" or
   (.pattern == "isolated-stall" and .metrics.cause == "cpu-contention") or
   (.pattern == "between-calls" and .metrics.cause == "preempted")) and
  (if (.culprit_pid // 0) != 0 then
     ([$sw[] | select(.pid == $ch.pid and .ts_ns >= $ch.ts_start and .ts_ns < $ch.ts_end and
                      ((.host_type == "switch" and .other_pid == $ch.culprit_pid) or
                       (.host_type == "wakeup" and .value == $ch.culprit_pid))) |
       .dur_ns] | add // 0)
       >= 0.1 * $ch.lost_ns
   else
     ([$snaps[] | select(.ts_ns >= $ch.ts_start and .ts_ns < $ch.ts_end) | .psi_cpu_some] as $in |
      (if ($in | length) > 0 then $in else [$snaps[] | .psi_cpu_some] end) |
      if length > 0 then add / length else 0 end) >= 20 or
     ([$sw[] | select(.pid == $ch.pid and
                      .ts_ns >= $ch.ts_start and .ts_ns < $ch.ts_end) | .dur_ns] | add // 0)
       >= 0.5 * $ch.lost_ns
   end);

# The records proven_busy reads as $sw: a log's preemptions (switch, value
# 0) and wakeups (usage: [$r[] | cpu_wait_records] as $sw).
def cpu_wait_records:
  select(.type == "host" and ((.host_type == "switch" and .value == 0) or
                              .host_type == "wakeup"));
