# SPDX-License-Identifier: MIT
# Stack ids in the merged log: every rank's input uses the same small ids
# (1, 2, ...) for different stacks, and writes each stack twice under two
# ids (--dup-stacks).  After the merge no id is shared between nodes, each
# distinct stack of a node is written once, and every event's stack_id
# names a stack record of its own node.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 3 --steps 50 --dup-stacks
for i in 0 1 2; do
	ingero-export -t stack rank$i.ilog | jq -r '.id' | sort -u | wc -l | sed "s/^/rank$i: stack records /"
done
ingero-merge -q rank0.ilog rank1.ilog rank2.ilog -o job.ilog
ingero-export -t stack job.ilog | jq -r '"\(.node_index // 0) \(.id) \(.pid) \(.ips | join(","))"' >stacks.txt
echo "merged: $(wc -l <stacks.txt) stack records"
echo "distinct (node, pid, frames): $(cut -d' ' -f1,3,4 stacks.txt | sort -u | wc -l)"
echo "ids shared between nodes: $(cut -d' ' -f2 stacks.txt | sort | uniq -d | wc -l)"
ingero-export -t cuda job.ilog | jq -r 'select(.stack_id != "0x0") | "\(.node_index // 0) \(.stack_id)"' |
	sort -u >refs.txt
echo "events referring to a stack of another node or none: $(cut -d' ' -f1,2 stacks.txt | sort -u | comm -13 - refs.txt | wc -l)"
echo "stacks referred to: $(wc -l <refs.txt)"
# merging again gives the same ids (content hashes)
ingero-merge -q job.ilog -o again.ilog
cmp <(ingero-export -t stack,cuda job.ilog) <(ingero-export -t stack,cuda again.ilog) && echo "re-merge keeps ids"
