# SPDX-License-Identifier: MIT
# Per-op quantiles, per-minute p99 and per-node counts by the queries of
# docs/fleet.md, on two scenario logs (two nodes) loaded with --create:
# exactly the numbers computed from the logs (logcalc.py, SQLite's op_stats
# view for the nearest-rank form), per-op counts exactly and p50/p99
# within the histogram precision of ingero-correlate --json.
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
start_ch 1

# 11:07:50 UTC onwards for 40 s: the minutes 11:07 and 11:08
"$SCENSYNTH" incident --seconds 40 --node node-a --real-ns 1795000070000000000 -o a.ilog
"$SCENSYNTH" periodic-spike --seconds 40 --seed 5 --node node-b \
	--real-ns 1795000070000000000 -o b.ilog
for f in a b; do
	export_ch --url "$CH_URL" --create $f.ilog 2>err.txt || fail "export $f: $(cat err.txt)"
done
ingero-export a.ilog b.ilog >all.jsonl
opnums "$CH_URL"

run() { # NAME: the docs query against logcalc.py
	chq "$CH_URL" "$(docq "$1")" >"$1.got"
	python3 "$HERE/logcalc.py" --opnums opnums.tsv "$1" all.jsonl >"$1.want"
	same "$1" "$1.got" "$1.want"
	echo "$1: $(wc -l <"$1.got") rows as computed from the logs"
}
run op-quantiles
run op-quantiles-nearest-rank
run minute-p99
run per-node

# the nearest-rank form against SQLite's op_stats (ingero-correlate's
# summary: counts exact, quantiles within its histogram's 0.39%)
ingero-export --format sqlite -o run.db a.ilog b.ilog 2>err.txt || fail "sqlite: $(cat err.txt)"
sqlite3 -separator $'\t' run.db "SELECT node_name, op, calls, p50_ns, p99_ns FROM op_stats
	ORDER BY node_name, op" >sqlite.tsv
paste op-quantiles-nearest-rank.got sqlite.tsv | awk -F'\t' '
	$1 != $6 || $2 != $7 || $3 != $8 { bad++ }
	{ for (i = 4; i <= 5; i++) { d = $i - $(i + 5); if (d < 0) d = -d; if (d > 0.0039 * $i) bad++ } }
	END { exit bad > 0 }' || fail "nearest-rank quantiles against SQLite op_stats differ"
[[ $(wc -l <sqlite.tsv) == $(wc -l <op-quantiles-nearest-rank.got) ]] ||
	fail "op_stats and the nearest-rank query have different rows"
echo "op-quantiles-nearest-rank agrees with SQLite's op_stats"

# ingero-correlate --json: the same counts; quantiles from its log-linear
# histogram, within 0.39% of the exact nearest-rank value
for f in a b; do
	ingero-correlate --json $f.ilog | jq -r 'select(.type == "stat") |
		[.node, .op, .count, .p50_ns, .p99_ns] | @tsv' | sort >corr.tsv
	chq "$CH_URL" "SELECT node, op_name, calls, p50_ns, p99_ns FROM
		($(docq op-quantiles-nearest-rank)) ANY LEFT JOIN
		(SELECT op, any(name) AS op_name FROM ingero.ops GROUP BY op) USING op
		WHERE node = 'node-$f' FORMAT TSV" | sort >ch.tsv
	join -t $'\t' <(awk -F'\t' '{print $1"/"$2"\t"$3"\t"$4"\t"$5}' ch.tsv) \
		<(awk -F'\t' '{print $1"/"$2"\t"$3"\t"$4"\t"$5}' corr.tsv) >joined.tsv
	[[ $(wc -l <joined.tsv) == $(wc -l <ch.tsv) && $(wc -l <ch.tsv) == $(wc -l <corr.tsv) ]] ||
		fail "node-$f: ops differ: $(cut -f1,2 ch.tsv | tr '\n' ' ') vs $(cut -f1,2 corr.tsv | tr '\n' ' ')"
	awk -F'\t' '
		$2 != $5 { print "FAIL: " $1 ": count " $2 " in ClickHouse, " $5 " in correlate"; bad = 1 }
		function off(a, b) { return (a > b ? a - b : b - a) / a }
		off($3, $6) > 0.0039 { print "FAIL: " $1 ": p50 " $3 " vs " $6; bad = 1 }
		off($4, $7) > 0.0039 { print "FAIL: " $1 ": p99 " $4 " vs " $7; bad = 1 }
		END { exit bad }' joined.tsv >&2 || exit 1
	echo "node-$f: $(wc -l <joined.tsv) ops agree with ingero-correlate --json"
done
