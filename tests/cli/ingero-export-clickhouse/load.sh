# SPDX-License-Identifier: MIT
# A log loaded with --create: every table has one row per record of its
# kind (counted with jq), the rows hold what the log holds (compared field
# by field with the jsonl export, wall times and fleet stack ids computed
# by logcalc.py), the sessions row says the export completed; the same log
# from stdin gives the same rows; --type cuda still resolves stack ids.
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
start_ch 1

"$SYNTH" --events 30000 --mix all --stacks 30 --seed 7 --node node-a -o a.ilog
"$RANKS" -o r --ranks 2 --steps 60 --chains
cat a.ilog r1.ilog >both.ilog   # two recordings in one stream
ingero-export both.ilog >all.jsonl

export_ch --url "$CH_URL" --create both.ilog 2>err.txt || fail "export: $(cat err.txt)"
[[ ! -s err.txt ]] || fail "stderr: $(cat err.txt)"
S1=$(chq "$CH_URL" "SELECT session_id FROM ingero.sessions FINAL")
[[ $S1 =~ ^[0-9]+$ ]] || fail "one session expected, got '$S1'"

count() { jq -c "select(.type == \"$1\")" all.jsonl | wc -l; }
for pair in cuda:events host:host_events process:processes snapshot:snapshots chain:chains \
	loss:losses header:nodes; do
	want=$(count "${pair%%:*}")
	got=$(chq "$CH_URL" "SELECT count() FROM ingero.${pair#*:} WHERE session_id = $S1")
	[[ $got == "$want" ]] || fail "${pair#*:}: $got rows, the log has $want ${pair%%:*} records"
	((want > 0)) || fail "the log has no ${pair%%:*} records to test with"
done
echo "rows per table match the record counts"

# the sessions row: complete, with the counts
want="$(jq -s length all.jsonl)	$(count cuda)	$(count host)	0	0	1"
got=$(chq "$CH_URL" "SELECT records, events, host_events, unknown_records, stacks_unknown, complete
	FROM ingero.sessions FINAL WHERE session_id = $S1")
[[ $got == "$want" ]] || fail "sessions row: $got, want $want"

# events, field by field
opnums "$CH_URL"
python3 "$HERE/logcalc.py" --opnums opnums.tsv events all.jsonl | sort >want.tsv
chq "$CH_URL" "SELECT node, pid, tid, ts_ns, dur_ns, op, ret, bytes, stack_id FROM ingero.events
	WHERE session_id = $S1 FORMAT TSV" | sort >got.tsv
same "events" got.tsv want.tsv
# op names through the lookup table
jq -r 'select(.type == "cuda") | .op' all.jsonl | sort | uniq -c | awk '{print $2 "\t" $1}' >want.tsv
chq "$CH_URL" "SELECT name, count() FROM ingero.events ANY LEFT JOIN
	(SELECT op, any(name) AS name FROM ingero.ops GROUP BY op) USING op
	WHERE session_id = $S1 GROUP BY name ORDER BY name" >got.tsv
same "calls per op name" got.tsv want.tsv
echo "events match the log"

# host events, processes, snapshots, chains, losses, nodes
jq -r 'select(.type == "host") | [.pid, .tid, .other_pid, .other_tid, .cpu, .dur_ns, .value,
	.host_type, .comm, .other_comm] | @tsv' all.jsonl | sort >want.tsv
chq "$CH_URL" "SELECT pid, tid, other_pid, other_tid, cpu, dur_ns, value, t.name, comm, other_comm
	FROM ingero.host_events ANY LEFT JOIN (SELECT type, any(name) AS name FROM ingero.host_types
	GROUP BY type) AS t USING type WHERE session_id = $S1 FORMAT TSV" | sort >got.tsv
same "host events" got.tsv want.tsv
jq -r 'select(.type == "process") | [.pid, .ppid, .uid, .start_ns, .comm, .exe, (.argv | join(" "))]
	| @tsv' all.jsonl | sort >want.tsv
chq "$CH_URL" "SELECT pid, ppid, uid, start_ns, comm, exe, arrayStringConcat(argv, ' ')
	FROM ingero.processes WHERE session_id = $S1 FORMAT TSV" | sort >got.tsv
same "processes" got.tsv want.tsv
jq -r 'select(.type == "snapshot") | [.ncpu, .mem_total, .mem_avail, .swap_total, .swap_free,
	(.procs | map(.pid) | join(",")), (.procs | map(.rss) | join(","))] | @tsv' all.jsonl |
	sort >want.tsv
chq "$CH_URL" "SELECT ncpu, mem_total, mem_avail, swap_total, swap_free,
	arrayStringConcat(arrayMap(x -> toString(x), proc_pid), ','),
	arrayStringConcat(arrayMap(x -> toString(x), proc_rss), ',')
	FROM ingero.snapshots WHERE session_id = $S1 FORMAT TSV" | sort >got.tsv
same "snapshots" got.tsv want.tsv
jq -r 'select(.type == "chain") | [.severity, .pattern, .pid, .op, .title, .fix] | @tsv' all.jsonl |
	sort >want.tsv
chq "$CH_URL" "SELECT sev, pattern, pid, op_name, title, fix FROM
	(SELECT severity, pattern, pid, title, fix, op_name FROM ingero.chains ANY LEFT JOIN
	 (SELECT op, any(name) AS op_name FROM ingero.ops GROUP BY op) USING op
	 WHERE session_id = $S1)
	ANY LEFT JOIN (SELECT severity, any(name) AS sev FROM ingero.severities GROUP BY severity)
	USING severity FORMAT TSV" | sort >got.tsv
same "chains" got.tsv want.tsv
jq -r 'select(.type == "loss") | [.source, .lost, .seen] | @tsv' all.jsonl | sort >want.tsv
chq "$CH_URL" "SELECT source, lost, seen FROM ingero.losses WHERE session_id = $S1" | sort >got.tsv
same "losses" got.tsv want.tsv
jq -r 'select(.type == "header") | [.node, .rank, .boot_id, .kernel] | @tsv' all.jsonl |
	sort >want.tsv
chq "$CH_URL" "SELECT node, rank, boot_id, kernel FROM ingero.nodes WHERE session_id = $S1" |
	sort >got.tsv
same "nodes" got.tsv want.tsv
echo "host events, processes, snapshots, chains, losses and nodes match the log"

# stacks: one row per fleet id, with the frames logcalc.py derives
python3 "$HERE/logcalc.py" stacks all.jsonl |
	jq -r '[.fid, (.keys | join(",")), (.offsets | map(tostring) | join(","))] | @tsv' |
	sort -u >want.tsv
chq "$CH_URL" "SELECT stack_id, arrayStringConcat(frame_key, ','),
	arrayStringConcat(arrayMap(x -> toString(x), frame_offset), ',') FROM ingero.stacks" |
	sort >got.tsv
same "stacks" got.tsv want.tsv
echo "$(wc -l <got.tsv) stacks match the log"

# the same log from stdin: a second session with the same rows
cat both.ilog | export_ch --url "$CH_URL" 2>err.txt || fail "stdin export: $(cat err.txt)"
S2=$(chq "$CH_URL" "SELECT session_id FROM ingero.sessions FINAL WHERE session_id != $S1")
chq "$CH_URL" "SELECT source FROM ingero.sessions FINAL WHERE session_id = $S2" >src.txt
[[ $(cat src.txt) == - ]] || fail "stdin session source: $(cat src.txt)"
for t in events host_events processes snapshots chains losses; do
	c1=$(chq "$CH_URL" "SELECT count() FROM ingero.$t WHERE session_id = $S1")
	c2=$(chq "$CH_URL" "SELECT count() FROM ingero.$t WHERE session_id = $S2")
	[[ $c1 == "$c2" ]] || fail "$t: $c2 rows from stdin, $c1 from the file"
done
chq "$CH_URL" "SELECT node, pid, tid, ts_ns, dur_ns, op, stack_id FROM ingero.events
	WHERE session_id = $S2 FORMAT TSV" | sort >got2.tsv
chq "$CH_URL" "SELECT node, pid, tid, ts_ns, dur_ns, op, stack_id FROM ingero.events
	WHERE session_id = $S1 FORMAT TSV" | sort >got1.tsv
same "events from stdin" got2.tsv got1.tsv
echo "stdin gives the same rows"

# --type cuda: only events (and nodes), stack ids resolved from filtered-out records
export_ch --url "$CH_URL" --type cuda both.ilog 2>err.txt || fail "--type cuda: $(cat err.txt)"
S3=$(chq "$CH_URL" "SELECT session_id FROM ingero.sessions FINAL WHERE session_id NOT IN ($S1, $S2)")
chq "$CH_URL" "SELECT node, pid, tid, ts_ns, dur_ns, op, stack_id FROM ingero.events
	WHERE session_id = $S3 FORMAT TSV" | sort >got3.tsv
same "events with --type cuda" got3.tsv got1.tsv
got=$(chq "$CH_URL" "SELECT count() FROM ingero.host_events WHERE session_id = $S3")
[[ $got == 0 ]] || fail "--type cuda loaded $got host events"
echo "--type cuda keeps the stack ids"

# blkio (format 1.3): one row per record, the quantiles from the histogram
export_ch --url "$CH_URL" "$INGERO_TESTS/vectors/host.ilog" 2>err.txt || fail "host vector: $(cat err.txt)"
ingero-export "$INGERO_TESTS/vectors/host.ilog" | jq -r 'select(.type == "blkio")
	| [.disk, .pid, .nprocs, .comm, .ios, .bytes, .read_ios, .lat_sum_ns, .lat_max_ns,
	   (.hist | map(tostring) | join(",") | "[" + . + "]")] | @tsv' | sort >want.tsv
chq "$CH_URL" "SELECT disk, pid, nprocs, comm, ios, bytes, read_ios, lat_sum_ns, lat_max_ns, hist
	FROM ingero.blkio FORMAT TSV" | sort >got.tsv
same "blkio rows" got.tsv want.tsv
chq "$CH_URL" "SELECT pid, p50_ns, p99_ns FROM ingero.blkio ORDER BY pid FORMAT TSV"

# the network (format 1.3): retrans and sockio rows, addresses as text
export_ch --url "$CH_URL" "$INGERO_TESTS/vectors/net.ilog" 2>err.txt || fail "net vector: $(cat err.txt)"
ingero-export "$INGERO_TESTS/vectors/net.ilog" | jq -r 'select(.type == "retrans")
	| [.pid, .comm, .family, .saddr, .daddr, .sport, .dport, .count, .flows] | @tsv' | sort >want.tsv
chq "$CH_URL" "SELECT pid, comm, family, saddr, daddr, sport, dport, count, flows
	FROM ingero.retrans FORMAT TSV" | sort >got.tsv
same "retrans rows" got.tsv want.tsv
ingero-export "$INGERO_TESTS/vectors/net.ilog" | jq -r 'select(.type == "sockio")
	| [.pid, .comm, .tx_bytes, .rx_bytes, .tx_calls, .rx_calls, .others] | @tsv' | sort >want.tsv
chq "$CH_URL" "SELECT pid, comm, tx_bytes, rx_bytes, tx_calls, rx_calls, others
	FROM ingero.sockio FORMAT TSV" | sort >got.tsv
same "sockio rows" got.tsv want.tsv
echo "retrans and sockio rows match the log"
