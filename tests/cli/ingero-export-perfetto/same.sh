# SPDX-License-Identifier: MIT
# The JSON and protobuf exports describe the same slices: same start, name,
# category, nesting depth, thread and arguments; times agree to the
# nanosecond (the JSON's are microseconds after its time zero, exact as
# doubles; `exact` counts the slices whose start and duration are the same
# nanoseconds).  A JSON preemption lane's tid is the thread's + 5000000
# (the protobuf has a child track of the thread): mapped back.  Also for a
# log whose slices do not nest (synth's calls overlap): clipped the same
# way in both, and Perfetto pairs every END (no misplaced_end_event).  (Trace processor adds a
# legacy_event.* argument of its own to some protobuf instants: left out.)
set -euo pipefail
. "$INGERO_TESTS/cli/ingero-export-perfetto/tp.bash"
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 100 --chains
ingero-merge -q rank0.ilog rank1.ilog -o job.ilog
"$INGERO_OUT"/tests/tools/synth --events 20000 --mix all -o synth.ilog
slices() {
	"$tp" -q /dev/stdin "$1" 2>/dev/null <<'SQL' | tail -n +2
select s.ts, s.dur, s.name, s.category, s.depth, thread.tid,
  (select group_concat(k, ' ') from (select replace(replace(key, 'debug.', ''), 'args.', '')
     || '=' || display_value as k from args a where a.arg_set_id = s.arg_set_id
       and key not like 'legacy_event.%' order by 1)) as args
from slice s left join thread_track tt on s.track_id = tt.id left join thread using (utid)
order by s.ts, s.name, thread.tid;
SQL
}
for log in job synth; do
	ingero-export -f perfetto -o $log.json $log.ilog
	ingero-export -f perfetto-proto -o $log.pftrace $log.ilog
	zero=$(jq -r .otherData.ingero_time_zero_unix_ns $log.json)
	# ts + zero, and a lane's tid back to its thread's (python: exact
	# 64-bit integers, which awk's doubles are not)
	slices $log.json | python3 -c '
import sys
z = int(sys.argv[1])
for l in sys.stdin:
    f = l.rstrip("\n").split(",", 6)
    f[0] = str(int(f[0]) + z)
    if f[5].isdigit() and int(f[5]) % 10000000 >= 5000000: f[5] = str(int(f[5]) - 5000000)
    print(",".join(f))' "$zero" | sort >a.txt
	slices $log.pftrace | sort >b.txt
	paste -d '\t' a.txt b.txt | awk -F '\t' '{
		split($1, a, ","); split($2, b, ","); d = a[2] - b[2]
		if (a[1] == b[1] && d == 0) exact++
		if (a[1] != b[1] || d > 1 || d < -1 || substr($1, length(a[1] a[2]) + 3) != substr($2, length(b[1] b[2]) + 3)) bad++ }
		END { printf "%d slices, %d differ, %d exact\n", NR, bad, exact }' | sed "s/^/$log: /"
	echo "$log: clipped in json $(grep -c clipped_from_ns $log.json || true), in proto $(grep -c clipped_from_ns b.txt || true)"
	"$tp" -q /dev/stdin $log.pftrace 2>/dev/null <<<"select count(*) from stats where value > 0 and
		severity in ('error', 'data_loss');" | tail -1 | sed "s/^/$log: error stats /"
done
