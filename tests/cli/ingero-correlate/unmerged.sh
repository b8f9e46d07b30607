# SPDX-License-Identifier: MIT
# Two ranks' logs given to ingero-correlate unmerged: each is analyzed on
# its own node timeline (not one node "73 s recorded" from two 0.33 s
# runs), the report says they were not merged and, as they were recorded
# at the same time, suggests ingero merge; the chains are the ones the
# merged log gives (and so are the notes).  Then two runs at different times: no merge advice.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 200
ingero-correlate --report rank0.ilog rank1.ilog >sep.txt
sed -n '2,5p' sep.txt
grep -E '^#|^NOTES|^  gpu-bound' sep.txt >sep-chains.txt
ingero-merge rank0.ilog rank1.ilog 2>/dev/null | ingero-correlate --report - | grep -E '^#|^NOTES|^  gpu-bound' >merged-chains.txt
[ -s sep-chains.txt ] || { echo "no chain or note to compare" >&2; exit 1; }
cmp sep-chains.txt merged-chains.txt && echo "chains: the same as the merged log's"
ingero-correlate --json rank0.ilog rank1.ilog | jq -c 'select(.type == "summary") |
	{node, logs, logs_overlap, duration_s: (.duration_ns / 1e9 | floor)}'
# a later run of rank 1 (recorded the next day): no advice to merge
"$INGERO_OUT"/tests/tools/ranks -o late --ranks 2 --steps 200 --skews 0,+86400s
ingero-correlate --report rank0.ilog late1.ilog | sed -n '4,5p'
