# SPDX-License-Identifier: MIT
# Chrome DevTools' trace engine (@paulirish/trace_engine, pinned in
# tests/perfetto/package-lock.json) parses the JSON export of a merged
# 3-rank job, of synth's mix (calls that overlap: clipped) and of a log
# whose preemptions end after the calls that contain them, with no error
# or warning and no slice left out of its thread's tree for a partial
# overlap: every CUDA call and preemption is a slice there.  Without node
# or npm the test is skipped, except in CI (CI=true), where it fails.
set -euo pipefail
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	[[ ${CI:-} == true ]] && { echo "node/npm not found (CI)" >&2; exit 1; }
	echo "node/npm not found" >&2
	exit 77
fi
(cd "$INGERO_TESTS/perfetto" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 3 --steps 100 --chains
ingero-merge -q rank0.ilog rank1.ilog rank2.ilog -o job.ilog
"$INGERO_OUT"/tests/tools/synth --events 20000 --mix all -o synth.ilog
"$INGERO_OUT"/tests/tools/preemptlog -o preempt.ilog --calls 40
for log in job synth preempt; do
	ingero-export -f perfetto -o $log.json $log.ilog
	n=$(($(ingero-export -t cuda $log.ilog | wc -l) +
		$(ingero-export -t host $log.ilog | jq -c 'select(.host_type == "switch")' | wc -l)))
	echo "$log: $n calls and preemptions"
	node "$INGERO_TESTS/perfetto/check.mjs" $log.json --expect-slices $n | sed "s/^/$log: /"
done
