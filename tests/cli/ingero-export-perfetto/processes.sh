# SPDX-License-Identifier: MIT
# A process per (node, pid) in both exports, in Perfetto's trace processor:
# a merged 2-rank job whose ranks run the same pids (each rank's python3
# and a pid with no process record, "pid N") gives one process row per
# (node, pid) with its name and node, pids unique across nodes (node k:
# k*10000000 + pid), threads by tid under their process with the comm as
# name, and a process per node for its counters and chains.  A log whose
# preemptions end after their calls: every call and preemption a slice of
# its thread, none clipped, preemptions on the thread's "preemptions"
# track (protobuf) or lane thread (JSON), all at depth 0, and the protobuf
# times are the log's nanoseconds exactly.
set -euo pipefail
. "$INGERO_TESTS/cli/ingero-export-perfetto/tp.bash"
q() { "$tp" -q /dev/stdin "$1" <<<"$2" 2>/dev/null | tail -n +2 | tr -d '"'; }
"$INGERO_OUT"/tests/tools/preemptlog -o a.ilog --calls 40
"$INGERO_OUT"/tests/tools/preemptlog -o p.ilog --calls 40
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 20
ingero-merge -q rank0.ilog rank1.ilog a.ilog -o job.ilog
for log in job p; do
	ingero-export -f perfetto -o $log.json $log.ilog
	ingero-export -f perfetto-proto -o $log.pftrace $log.ilog
	for t in $log.json $log.pftrace; do
		echo "== $t"
		q $t "select pid, name from process where pid > 0 order by pid;"
		q $t "select p.pid, t.tid, t.name from thread t join process p using (upid)
			where t.tid > 0 and t.tid != p.pid or t.name is not null order by 1, 2;" |
			sed 's/^/thread: /'
		q $t "select coalesce(tt.name, 'thread'), s.name, count(*), max(s.depth)
			from slice s join thread_track tt on s.track_id = tt.id where dur > 0
			group by 1, 2 order by 1, 2;" | sed 's/^/slices: /'
		q $t "select count(*) from args where key like '%clipped_from_ns';" | sed 's/^/clipped: /'
		q $t "select count(*) from stats where value > 0 and severity in ('error', 'data_loss');" |
			sed 's/^/error stats: /'
	done
	echo "log: $(ingero-export -t cuda $log.ilog | wc -l) calls, $(ingero-export -t host $log.ilog | wc -l) preemptions"
done
# the protobuf's slice times are the log's wall nanoseconds, exactly
python3 - <(ingero-export -t cuda,host p.ilog) \
	<(q p.pftrace "select ts, dur from slice where dur > 0 order by ts, dur;") <<'PY'
import sys, json, datetime
want = set()
for l in open(sys.argv[1]):
    r = json.loads(l)
    # "time" is the wall clock of ts_ns, to the nanosecond
    d, frac = r["time"].rstrip("Z").split(".")
    s = int(datetime.datetime.fromisoformat(d).replace(tzinfo=datetime.timezone.utc).timestamp())
    want.add((s * 10**9 + int(frac.ljust(9, "0")), r["dur_ns"]))
got = {tuple(map(int, l.split(","))) for l in open(sys.argv[2]) if l.strip()}
print(f"protobuf: {len(got)} slices, {len(got & want)} at the log's exact ns")
PY
