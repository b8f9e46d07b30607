# SPDX-License-Identifier: MIT
# docs/schema.md is the contract: every table, view and column the exporter
# creates is documented there, and every documented table exists.
set -euo pipefail
doc=$INGERO_TESTS/../docs/schema.md
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 1 --steps 5
ingero-export -f sqlite -o run.db rank0.ilog
# documented columns: first cells of table rows, "table.col, col2" or "col, col2",
# under "### a, b" headings naming the tables of that section
awk '/^### / { sub(/^### /, ""); sub(/ —.*/, ""); n = split($0, t, /, */); next }
     /^\| *[a-z_]/ && n { cell = $0; sub(/^\| */, "", cell); sub(/ *\|.*/, "", cell)
       if (cell == "column" || cell == "table.column") next
       m = split(cell, c, /, */); cur = ""
       for (i = 1; i <= m; i++) { col = c[i]
         if (index(col, ".")) { split(col, q, "."); cur = q[1]; col = q[2] }
         if (cur != "") print cur "." col; else for (k = 1; k <= n; k++) print t[k] "." col } }
     /^## / && !/^## Tables/ { n = 0 }' "$doc" | sort -u >documented.txt
# (SQLite's own tables, sqlite_stat1 of ANALYZE, are not ours to document)
sqlite3 run.db "SELECT m.name || '.' || p.name FROM sqlite_schema m, pragma_table_info(m.name) p
	WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'" | sort -u >actual.txt
echo "tables: $(sqlite3 run.db "SELECT count(*) FROM sqlite_schema WHERE type = 'table'
	AND name NOT LIKE 'sqlite\_%' ESCAPE '\'")"
echo "views: $(sqlite3 run.db "SELECT count(*) FROM sqlite_schema WHERE type = 'view'")"
echo "undocumented columns: $(comm -23 actual.txt documented.txt | tr '\n' ' ')"
echo "documented but missing: $(comm -13 actual.txt documented.txt | tr '\n' ' ')"
# views: each is named in the doc's Views table with its columns
for v in $(sqlite3 run.db "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY 1"); do
	row=$(grep "^| $v |" "$doc" || true)
	miss=$(sqlite3 run.db "SELECT name FROM pragma_table_info('$v')" | while read -r c; do
		[[ $row == *"$c"* || $row == *"every"* ]] || echo -n "$c "; done)
	echo "$v: ${row:+documented}${miss:+, missing: $miss}"
done
# indexes are listed too
for i in $(sqlite3 run.db "SELECT name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY 1"); do
	grep -q "^| $i |" "$doc" || echo "index $i undocumented"
done
