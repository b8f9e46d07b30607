# SPDX-License-Identifier: MIT
# A four-rank job (tests/tools/ranks) streamed into two shards, two ranks
# each, and queried through the Distributed *_all tables from either
# shard; the same logs in one server.  Every fleet query of docs/fleet.md
# gives the same answer three ways and the answer computed from the logs
# (logcalc.py); the per-node query separates the nodes; the same stack
# content has one id everywhere (each rank writes it under two recorder
# ids, --dup-stacks).
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
start_ch 2
SHARDED1=$CH_URL1 SHARDED2=$CH_URL2
# one more server, alone in its own cluster 'ingero'
CH_DIR=$PWD/ch-single
"$INGERO_TESTS/clickhouse/start.sh" "$CH_DIR" 1 || fail "second clickhouse-server did not start"
trap '"$INGERO_TESTS/clickhouse/stop.sh" "$PWD/ch"; "$INGERO_TESTS/clickhouse/stop.sh" "$PWD/ch-single"' EXIT
SINGLE=$(. "$CH_DIR/env" && echo "$CH_URL")

"$RANKS" -o r --ranks 4 --steps 400 --dup-stacks --chains --seed 11
for r in 0 1 2 3; do
	shard=$SHARDED1
	((r < 2)) || shard=$SHARDED2
	export_ch --url "$shard" --create r$r.ilog 2>err.txt || fail "rank $r: $(cat err.txt)"
	export_ch --url "$SINGLE" --create r$r.ilog 2>err.txt || fail "rank $r: $(cat err.txt)"
done
for u in "$SHARDED1" "$SHARDED2"; do
	n=$(chq "$u" "SELECT count() FROM ingero.events")
	[[ $n == $(chq "$SINGLE" "SELECT count() FROM ingero.events") ]] &&
		fail "one shard holds every row"
done
ingero-export r0.ilog r1.ilog r2.ilog r3.ilog >all.jsonl
opnums "$SINGLE"

for q in per-node op-quantiles op-quantiles-nearest-rank minute-p99 stragglers straggler-ranks \
	top-stacks; do
	chq "$SHARDED1" "$(docq $q)" >$q.1
	chq "$SHARDED2" "$(docq $q)" >$q.2
	chq "$SINGLE" "$(docq $q)" >$q.s
	same "$q from the second shard" $q.2 $q.1
	same "$q from one server" $q.s $q.1
	python3 "$HERE/logcalc.py" --opnums opnums.tsv $q all.jsonl >$q.want
	[[ $q != top-stacks ]] || cut -f1-4 $q.1 >$q.got
	same "$q" "$( [[ $q == top-stacks ]] && echo $q.got || echo $q.1)" $q.want
	echo "$q: $(wc -l <$q.1) rows, the same from each shard, one server and the logs"
done
cut -f1,2 per-node.1

# the stragglers the simulation made (a rank 100-600 us late now and then)
# are the ones found
awk -F'\t' '$3 >= 100000' stragglers.1 | wc -l | sed 's/^/collectives held up by 100 us or more: /'

# one id per stack content: ranks write each content under two ids, the
# same contents on every rank
got=$(chq "$SHARDED1" "SELECT uniqExact(stack_id), uniqExact(node) FROM ingero.events_all
	WHERE stack_id != 0")
echo "fleet stack ids, nodes using them: $got"
echo "recorder stack ids: $(jq -r 'select(.type == "stack") | .id' all.jsonl | sort -u | wc -l)"
got=$(chq "$SHARDED1" "SELECT count() FROM (SELECT stack_id FROM ingero.events_all
	WHERE stack_id != 0 GROUP BY stack_id HAVING uniqExact(node) = 4)")
echo "stack ids every node uses: $got"
