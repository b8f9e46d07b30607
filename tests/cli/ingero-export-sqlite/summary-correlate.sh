# SPDX-License-Identifier: MIT
# The summary tables the export writes at load agree with ingero-correlate
# --json on the same log: node summaries, per-process statistics
# (--per-process) and per-window rows (--windows, --per-process) are equal
# row for row; the call-site totals equal a GROUP BY over the raw rows.  A
# merged two-rank job, so rows of two nodes are told apart.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 300 --chains
ingero-merge -q rank0.ilog rank1.ilog -o job.ilog
ingero-export -f sqlite -o run.db job.ilog
q() { sqlite3 -separator ' ' run.db "$1" | sort; }
cmp_rows() { # NAME DB-FILE CORRELATE-FILE
	if cmp -s "$2" "$3"; then echo "$1: $(wc -l <"$2") rows equal"
	else echo "$1 differ:"; diff "$2" "$3" | head -5; fi
}
# nodes
q "SELECT n.name, s.windows, s.window_ns, s.records, s.cuda_events, s.host_events, s.processes
	FROM summary_nodes s JOIN nodes n USING (session_id, node)" >db.txt
ingero-correlate --json job.ilog | jq -r 'select(.type == "summary") |
	"\(.node) \(.windows) \(.window_ns) \(.records) \(.cuda_events) \(.host_events) \(.processes)"' |
	sort >cor.txt
cmp_rows "summary_nodes" db.txt cor.txt
# per process
q "SELECT n.name, s.pid, s.comm, o.name, s.calls, s.total_ns, s.min_ns, s.p50_ns, s.p95_ns,
	s.p99_ns, s.max_ns, s.errors, s.bytes FROM summary_process_ops s JOIN nodes n USING
	(session_id, node) JOIN ops o ON o.op = s.op" >db.txt
ingero-correlate --json --per-process job.ilog | jq -r 'select(.type == "stat") |
	"\(.node) \(.pid) \(.comm) \(.op) \(.count) \(.total_ns) \(.min_ns) \(.p50_ns) \(.p95_ns) \(.p99_ns) \(.max_ns) \(.errors) \(.bytes)"' |
	sort >cor.txt
cmp_rows "summary_process_ops" db.txt cor.txt
# per window, per node and per process: the same windows (their width), counts, quantiles
for pp in "" --per-process; do
	t=summary_windows
	[[ $pp ]] && t=summary_process_windows
	q "SELECT n.name, ${pp:+s.pid,} o.name, s.end_ts - s.start_ts, s.calls, s.total_ns, s.min_ns,
		s.p50_ns, s.p95_ns, s.p99_ns, s.max_ns FROM $t s JOIN nodes n USING (session_id, node)
		JOIN ops o ON o.op = s.op" >db.txt
	ingero-correlate --json --windows $pp job.ilog | jq -r 'select(.type == "window") |
		"\(.node) \(if .pid then "\(.pid) " else "" end)\(.op) \(.end_ns - .start_ns) \(.count) \(.total_ns) \(.min_ns) \(.p50_ns) \(.p95_ns) \(.p99_ns) \(.max_ns)"' |
		sort >cor.txt
	cmp_rows "$t" db.txt cor.txt
done
# the windows lie within the node's span, in wall-clock time
echo "windows outside their node's span: $(sqlite3 run.db 'SELECT count(*) FROM summary_windows w
	JOIN summary_nodes n USING (session_id, node)
	WHERE w.start_ts < n.start_ts - n.window_ns OR w.end_ts > n.end_ts + n.window_ns')"
# call sites against the rows
q "SELECT node, pid, op, stack_id, pystack_id, calls, total_ns, max_ns FROM summary_callsites" >db.txt
q "SELECT node, pid, op, stack_id, pystack_id, count(*), sum(dur_ns), max(dur_ns) FROM events
	GROUP BY node, pid, op, stack_id, pystack_id" >raw.txt
cmp_rows "summary_callsites (against the rows)" db.txt raw.txt
echo "chains: $(sqlite3 run.db 'SELECT count(*) FROM chains'), the log's own"
# a log without chain records gets ingero-correlate's
"$INGERO_OUT"/tests/tools/synth --events 20000 --mix all -o raw.ilog
ingero-export -f sqlite -o raw.db raw.ilog
sqlite3 -separator ' ' raw.db 'SELECT severity_name, pattern, pid, op_name, culprit_pid, title
	FROM chains_named ORDER BY rowid' >db.txt
ingero-correlate --json raw.ilog | jq -r 'select(.type == "chain") |
	"\(.severity) \(.pattern) \(.pid) \(.op) \(.culprit_pid) \(.title)"' >cor.txt
cmp_rows "chains of a log without any" db.txt cor.txt
