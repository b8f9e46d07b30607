# SPDX-License-Identifier: MIT
# The CSV is RFC 4180 as sqlite3's .import reads it: one row per CUDA event
# with the events table's columns (names at the edge), quoting where a field
# needs it; its numbers equal the sqlite export's.
set -euo pipefail
"$INGERO_OUT"/tests/tools/synth --events 3000 --mix all --node 'rack 7, "gpu" a' -o a.ilog
ingero-export -f csv -o a.csv a.ilog
head -1 a.csv
sqlite3 csv.db '.mode csv' '.import a.csv ev'
sqlite3 -separator ' ' csv.db 'SELECT count(*), count(DISTINCT node), sum(dur_ns), sum(bytes) FROM ev'
ingero-export -f sqlite -o run.db a.ilog
sqlite3 -separator ' ' run.db 'SELECT count(*), count(DISTINCT node), sum(dur_ns), sum(bytes) FROM events'
sqlite3 csv.db 'SELECT DISTINCT node FROM ev'
# per op, the same calls and time
sqlite3 -separator ' ' csv.db 'SELECT op, count(*), sum(dur_ns) FROM ev GROUP BY op ORDER BY op' >c.txt
sqlite3 -separator ' ' run.db 'SELECT o.name, count(*), sum(dur_ns) FROM events e JOIN ops o USING (op)
	GROUP BY o.name ORDER BY o.name' >s.txt
cmp c.txt s.txt && echo "$(wc -l <c.txt) ops agree"
# handles and ids as the JSON export writes them
sqlite3 csv.db "SELECT count(*) FROM ev WHERE handle NOT LIKE '0x%' OR stack_id NOT LIKE '0x%'"
