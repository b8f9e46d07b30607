# SPDX-License-Identifier: MIT
# The Prometheus text exposition passes promtool's checks (Debian package
# prometheus), and its counts and histogram totals are the log's.
set -euo pipefail
command -v promtool >/dev/null || { echo "promtool not found (Debian prometheus)" >&2; exit 77; }
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 100
"$INGERO_OUT"/tests/tools/synth --events 5000 --mix all --node 'odd "name"\x' -o synth.ilog
ingero-merge -q rank0.ilog rank1.ilog -o job.ilog
for log in job synth; do
	ingero-export -f prometheus $log.ilog >$log.prom
	promtool check metrics <$log.prom && echo "$log: promtool ok"
	# calls per op: the metric against the log
	grep '^ingero_cuda_calls_total' $log.prom | sed 's/.*op="\([^"]*\)".* \([0-9]*\)$/\1 \2/' |
		sort | awk '{a[$1] += $2} END {for (k in a) print k, a[k]}' | sort >prom.txt
	ingero-export -t cuda $log.ilog | jq -r .op | sort | uniq -c | awk '{print $2, $1}' | sort >log.txt
	cmp prom.txt log.txt && echo "$log: $(wc -l <prom.txt) ops, calls match the log"
	# each histogram's +Inf bucket is its count, buckets never decrease
	awk '/_bucket\{/ { k = $0; sub(/,le=.*/, "", k); v = $NF
	        if (k == pk && v < pv) bad++; pk = k; pv = v
	        if ($0 ~ /le="\+Inf"/) inf[k] = v }
	     /_count\{/ { k = $0; sub(/_count\{/, "_bucket{", k); sub(/\} .*/, "", k); cnt[k] = $NF }
	     END { for (k in cnt) if (cnt[k] != inf[k]) bad++; printf "histograms: %d problems\n", bad }' $log.prom
done
grep -c '^# TYPE' job.prom
grep '^ingero_events_lost_total' job.prom
grep -m1 'node="odd' synth.prom | sed 's/,layer.*//'
