# SPDX-License-Identifier: MIT
# ingero-correlate --html on a merged log of three ranks whose clocks were
# off by 0, +3 ms and +40 ms: a timeline per node, a lane per node on the
# shared axis, and each node's clock offset the very one ingero-merge
# estimated (its provenance record); checked in headless chromium.
set -uo pipefail
. "$INGERO_TESTS/cli/html.bash"
need_chromium
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 3 --skews 0,+3ms,+40ms --steps 200
ingero-merge -q -j -o job.ilog rank0.ilog rank1.ilog rank2.ilog >est.jsonl || exit 1
ingero-correlate --html job.html job.ilog || exit 1
check_html job.html job.ilog shot.png || exit 1
jq -n --slurpfile f facts.json --slurpfile e est.jsonl -e '
	$f[0].dom as $d
	| ($d.skews == [$e[].offset_ns]) and ($d.node_lanes == 3) and ($d.timelines | length == 3)' \
	>/dev/null || { echo "skews: $(jq -c .dom.skews facts.json), estimated: $(jq -c .offset_ns est.jsonl | tr '\n' ' ')" >&2; exit 1; }
