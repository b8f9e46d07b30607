# SPDX-License-Identifier: MIT
# The JSON and protobuf exports describe the same slices: same start, name,
# category, nesting depth, thread and arguments; durations agree to the
# nanosecond the JSON importer can lose (it reads microseconds as doubles).
# Also for a log whose slices do not nest (synth's preemptions overlap the
# calls around them): clipped the same way in both, and Perfetto pairs
# every END (no misplaced_end_event).  (Trace processor adds a
# legacy_event.* argument of its own to some protobuf instants: left out.)
set -euo pipefail
tp=$INGERO_TESTS/../../shared/tools/trace_processor_shell
[[ -x $tp ]] || tp=$(command -v trace_processor_shell) ||
	{ echo "trace_processor_shell not found (../shared/tools/README.md)" >&2; exit 77; }
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
	slices $log.json >a.txt
	slices $log.pftrace >b.txt
	paste -d '\t' a.txt b.txt | awk -F '\t' '{
		split($1, a, ","); split($2, b, ","); d = a[2] - b[2]
		if (a[1] != b[1] || d > 1 || d < -1 || substr($1, length(a[1] a[2]) + 3) != substr($2, length(b[1] b[2]) + 3)) bad++ }
		END { printf "%d slices, %d differ\n", NR, bad }' | sed "s/^/$log: /"
	echo "$log: clipped in json $(grep -c clipped_from_ns $log.json || true), in proto $(grep -c clipped_from_ns b.txt || true)"
	"$tp" -q /dev/stdin $log.pftrace 2>/dev/null <<<"select count(*) from stats where value > 0 and
		severity in ('error', 'data_loss');" | tail -1 | sed "s/^/$log: error stats /"
done
