# SPDX-License-Identifier: MIT
# ingero-merge --json: the per-node clock estimates as JSON Lines on stdout
# (with -n or -o FILE), the same objects the provenance record holds; the
# warning about the 40 ms node stays on stderr; without -o or -n it refuses.
set -uo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 3 --skews 0,+3ms,+40ms --steps 200
ingero-merge -n -j rank0.ilog rank1.ilog rank2.ilog >est.jsonl 2>err.txt
jq -r '"\(.node_index) \(.node) \(.method) \(.offset_ns / 1e6 | round) ms, \(.matched) matched"' est.jsonl
sed 's/^/stderr: /' err.txt
ingero-merge -j -o job.ilog rank0.ilog rank1.ilog rank2.ilog >est2.jsonl 2>/dev/null
ingero-export -t provenance job.ilog | jq -c '.args | fromjson | .nodes[]' >prov.jsonl
cmp est2.jsonl prov.jsonl && echo "--json = the provenance record's nodes"
ingero-merge -j rank0.ilog rank1.ilog >/dev/null 2>err2.txt; echo "to stdout: exit $?"; cat err2.txt
