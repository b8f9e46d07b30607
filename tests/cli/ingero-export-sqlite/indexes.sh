# SPDX-License-Identifier: MIT
# Queries by time, by process and by op within a time window use the
# indexes (without reading a row: op is in both), on a new database
# and after an append (where they are kept up row by row); the answers are
# the same as a full scan's.
set -euo pipefail
synth=$INGERO_OUT/tests/tools/synth
$synth --events 20000 --mix all --seed 3 -o a.ilog
ingero-export -f sqlite -o run.db a.ilog
plan() { sqlite3 run.db "EXPLAIN QUERY PLAN $1" | grep -o 'USING [A-Z ]*INDEX [a-z_]*' | head -1; }
t0=$(sqlite3 run.db 'SELECT min(ts) + (max(ts) - min(ts)) / 3 FROM events')
t1=$(sqlite3 run.db 'SELECT min(ts) + (max(ts) - min(ts)) / 2 FROM events')
q_time="SELECT count(*) FROM events WHERE ts BETWEEN $t0 AND $t1"
q_pid="SELECT count(*) FROM events WHERE pid = 4242 AND ts > $t0"
q_op="SELECT count(*) FROM events WHERE op = 7 AND ts < $t1"
for q in "$q_time" "$q_pid" "$q_op"; do plan "$q"; done
# the same counts without indexes
for q in "$q_time" "$q_pid" "$q_op"; do
	a=$(sqlite3 run.db "$q")
	b=$(sqlite3 run.db "${q/FROM events/FROM events NOT INDEXED}")
	[[ $a == "$b" ]] && echo "$a rows either way"
done
ingero-export -f sqlite -o run.db a.ilog
for q in "$q_time" "$q_pid" "$q_op"; do
	a=$(sqlite3 run.db "$q")
	b=$(sqlite3 run.db "${q/FROM events/FROM events NOT INDEXED}")
	[[ $a == "$b" ]] && echo "after the append: $a rows either way"
done
sqlite3 run.db 'PRAGMA integrity_check'
