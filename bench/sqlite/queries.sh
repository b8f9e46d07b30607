#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench/sqlite/queries.sh DB: what bench/sqlite and bench/mcp time, one
# query a line as "LABEL<TAB>SQL": every view of docs/schema.md (all its
# rows for the newest session) and every example query of its "Example
# queries" section, read from the document itself, with :t0/:t1 (a one
# second window ten seconds in), :pid (the busiest process) and :stack_id
# (the heaviest stack) filled in from the database.
set -euo pipefail
db=$1
doc=$(dirname "$0")/../../docs/schema.md
v() { sqlite3 "$db" "$1"; }
sess=$(v 'SELECT session_id FROM latest_session')
t0=$(v "SELECT start_ts + 10000000000 FROM summary_nodes WHERE session_id = $sess LIMIT 1")
t1=$((t0 + 1000000000))
pid=$(v "SELECT pid FROM summary_process_ops WHERE session_id = $sess GROUP BY pid
	ORDER BY sum(total_ns) DESC LIMIT 1")
stack=$(v "SELECT stack_id FROM summary_callsites WHERE session_id = $sess AND stack_id != 0
	GROUP BY stack_id ORDER BY sum(total_ns) DESC LIMIT 1")
# views: all rows of the newest session; a view of raw rows (one with a
# ts column) over the window, stack_frames for the stack
for view in $(sed -n '/^## Views/,/^## Pragmas/p' "$doc" |
	awk -F'|' '/^\| [a-z_]+ \|/ && $2 !~ /^ view $/ { gsub(/ /, "", $2); print $2 }'); do
	cols=" $(v "SELECT group_concat(name, ' ') FROM pragma_table_info('$view')") "
	where=""
	[[ $cols == *" session_id "* ]] && where="session_id = $sess"
	[[ $cols == *" ts "* ]] && where="$where AND ts >= $t0 AND ts < $t1"
	[[ $cols == *" stack_id "* && $cols != *" ts "* && $cols != *" calls "* ]] &&
		where="$where AND stack_id = ${stack:-0}"
	printf 'view %s\tSELECT * FROM %s%s\n' "$view" "$view" "${where:+ WHERE $where}"
done
# examples: a comment line names the query, the lines up to ';' are it
sed -n '/^## Example queries/,/^```$/p' "$doc" | sed -n '/^```sql/,/^```$/p' | sed '1d;$d' |
	awk -v t0="$t0" -v t1="$t1" -v pid="$pid" -v stack="${stack:-0}" '
	/^-- / { if (!more) label = substr($0, 4); more = 1; next }
	{ more = 0 }
	/^$/ { next }
	{ q = q (q == "" ? "" : " ") $0 }
	/;$/ { gsub(/:t0/, t0, q); gsub(/:t1/, t1, q); gsub(/:pid/, pid, q); gsub(/:stack_id/, stack, q)
	       sub(/;$/, "", q); n[label]++; printf "example: %s%s\t%s\n", label, (n[label] > 1 ? " (2)" : ""), q; q = "" }'
