# SPDX-License-Identifier: MIT
# Exporting into an existing database appends a session; the earlier one is
# untouched.  Files that are not ingero databases are refused, so is a
# missing -o, and a damaged log keeps the records before the damage.
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
$synth --events 3000 --seed 1 --node gpu-a --frame-records 500 -o a.ilog
$synth --events 2000 --seed 2 --node gpu-b -o b.ilog
ingero-export -f sqlite -o run.db a.ilog
sqlite3 run.db 'SELECT count(*) FROM events' | sed 's/^/after one: /'
sqlite3 run.db 'SELECT group_concat(seq) FROM sessions' >seq1.txt
sqlite3 run.db "SELECT count(*), sum(dur_ns) FROM events" >before.txt
ingero-export -f sqlite -o run.db b.ilog a.ilog
sqlite3 -separator ' ' run.db 'SELECT seq, source, events, complete FROM sessions ORDER BY seq'
# the first session's rows are as they were
sqlite3 run.db "SELECT count(*), sum(dur_ns) FROM events WHERE session_id =
	(SELECT session_id FROM sessions WHERE seq = 1)" | cmp - before.txt && echo "session 1 unchanged"
sqlite3 -separator ' ' run.db 'SELECT s.seq, n.node, n.name FROM nodes n JOIN sessions s USING (session_id) ORDER BY 1, 2'
sqlite3 run.db 'PRAGMA integrity_check'
sqlite3 run.db 'PRAGMA application_id; PRAGMA user_version' | tr '\n' ' '; echo
# session ids are random 63-bit values, distinct
sqlite3 -separator " " run.db "SELECT count(DISTINCT session_id), min(session_id) > 0 FROM sessions"
# refusals
echo 'hello' >notes.txt
sqlite3 other.db 'CREATE TABLE t(x)'
for out in notes.txt other.db; do
	ingero-export -f sqlite -o $out a.ilog 2>&1; echo "exit $?"
done
ingero-export -f sqlite a.ilog 2>&1; echo "exit $?"
cmp <(echo hello) notes.txt && echo "notes.txt untouched"
# a damaged log: the records before the damage are loaded, exit 2
head -c 20000 a.ilog >cut.ilog
ingero-export -f sqlite -o cut.db cut.ilog 2>/dev/null; echo "exit $?"
n_db=$(sqlite3 cut.db 'SELECT events FROM sessions')
n_log=$(ingero-export -t cuda cut.ilog 2>/dev/null | wc -l)
[[ $n_db == "$n_log" && $n_db -gt 0 ]] && echo "cut.db holds the $n_log events before the damage"
