# SPDX-License-Identifier: MIT
# A log on stdin is merged in one pass: its node is named from its first
# header and its offset cannot be estimated (no first pass), which the
# report says; the files around it are estimated as usual.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 3 --skews 0,+2ms,+4ms --steps 100
ingero-merge rank0.ilog - rank2.ilog -o job.ilog <rank1.ilog 2>err.txt
sed 's/offset [-+][0-9.]* ms +- [0-9.]* [mu]s/offset X/; s/(spread [^;]*;/(/' err.txt
ingero-export -t header job.ilog | jq -r '"\(.node_index // 0) \(.node)"'
ingero-export -t cuda job.ilog | jq -r '.node_index // 0' | sort | uniq -c | awk '{print $2, $1}'
# and to stdout: a pipe, not a terminal
ingero-merge -q rank0.ilog rank2.ilog | ingero-export -t header | jq -r .node
