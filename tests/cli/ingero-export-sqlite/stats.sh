# SPDX-License-Identifier: MIT
# The op_stats view (the summary the export computes at load with
# ingero-correlate's statistics) against two other computations of the same
# log: ingero-correlate --json (per node and op: equal), and an exact
# nearest-rank computation over the JSON export with sort and awk (counts
# equal, quantiles within the documented 0.39%, lib/include/ingero/stats.h).
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 300 --chains
ingero-merge -q rank0.ilog rank1.ilog -o job.ilog
ingero-export -f sqlite -o run.db job.ilog
sqlite3 -separator ' ' run.db 'SELECT node_name, layer_name, op_name, calls, p50_ns, p95_ns, p99_ns
	FROM op_stats ORDER BY 1, 2, 3' >sql.txt
echo "op_stats rows: $(wc -l <sql.txt)"
# exact: nearest rank, the ceil(q*n)-th smallest
ingero-export -t header,cuda job.ilog | jq -r 'if .type == "header" then empty else
	"\(.node_index // 0) \(.layer) \(.op) \(.dur_ns)" end' | sort -k1,1n -k2,2 -k3,3 -k4,4n |
	awk -v names="$(ingero-export -t header job.ilog | jq -r .node | tr '\n' ' ')" '
	function flush() { if (!n) return
		printf "%s %s %s %d %d %d %d\n", nm[node + 1], layer, op, n, d[int((n * 50 + 99) / 100)],
			d[int((n * 95 + 99) / 100)], d[int((n * 99 + 99) / 100)]; n = 0 }
	BEGIN { split(names, nm, " ") }
	{ k = $1 " " $2 " " $3; if (k != key) { flush(); key = k; node = $1; layer = $2; op = $3 }
	  d[++n] = $4 }
	END { flush() }' | sort -k1,1 -k2,2 -k3,3 >exact.txt
join -j1 <(awk '{print $1"/"$2"/"$3, $4, $5, $6, $7}' sql.txt) \
	<(awk '{print $1"/"$2"/"$3, $4, $5, $6, $7}' exact.txt) | awk '
	{ rows++; if ($2 != $6) { print "count differs: " $0; bad++ }
	  for (i = 3; i <= 5; i++) { d = $i - $(i + 4); if (d < 0) d = -d
	    if (d > 0.0039 * $(i + 4)) { print "quantile off: " $0; bad++ } } }
	END { printf "%d rows against the exact nearest-rank quantiles, %d off by more than 0.39%%\n", rows, bad }'
# ingero-correlate
ingero-correlate --json job.ilog | jq -r 'select(.type == "stat") |
	"\(.node) \(.layer) \(.op) \(.count) \(.p50_ns) \(.p95_ns) \(.p99_ns)"' | sort -k1,1 -k2,2 -k3,3 >cor.txt
join -j1 <(awk '{print $1"/"$2"/"$3, $4, $5, $6, $7}' sql.txt) \
	<(awk '{print $1"/"$2"/"$3, $4, $5, $6, $7}' cor.txt) | awk '
	{ rows++; if ($2 != $6) { print "count differs: " $0; bad++ }
	  for (i = 3; i <= 5; i++) if ($i != $(i + 4)) { print "quantile differs: " $0; bad++ } }
	END { printf "%d rows joined with ingero-correlate, %d differ\n", rows, bad }'
echo "rows only in one: $(join -v1 -v2 -j1 <(awk '{print $1"/"$2"/"$3}' sql.txt) <(awk '{print $1"/"$2"/"$3}' cor.txt) | wc -l)"
