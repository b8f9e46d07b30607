# SPDX-License-Identifier: MIT
# Same input, same bytes: both Perfetto exports (and the sqlite-free formats)
# are functions of the log alone.  The JSON is valid JSON whose complete
# events all carry a name, and processes sort by node, the node's own
# process (counters, chains) first: sort index = node * 10000000 + pid.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 3 --steps 60 --chains
export SOURCE_DATE_EPOCH=1795000000
for run in 1 2; do
	mkdir run$run
	(cd run$run && ingero-merge -q ../rank0.ilog ../rank1.ilog ../rank2.ilog -o job.ilog &&
		for f in perfetto perfetto-proto prometheus otlp csv jsonl; do
			ingero-export -f $f -o job.$f job.ilog
		done)
done
for f in ilog perfetto perfetto-proto prometheus otlp csv jsonl; do
	cmp run1/job.$f run2/job.$f && echo "$f: same bytes"
done
jq -r '.traceEvents | map(select(.ph == "X" or .ph == "E" or .ph == "B")) |
	"\(length) duration events, \(map(select((.name // "") == "")) | length) without a name"' run1/job.perfetto
jq -r '.traceEvents[] | select(.name == "process_sort_index") | "\(.pid) \(.args.sort_index)"' run1/job.perfetto
