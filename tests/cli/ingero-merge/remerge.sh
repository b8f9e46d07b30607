# SPDX-License-Identifier: MIT
# Merging a merged log with more logs gives the records of merging all of
# them at once, in the same order; each merge adds its provenance record.
# With SOURCE_DATE_EPOCH the output is the same bytes on every run.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 4 --skews 0,+3ms,-7ms,+40ms --steps 100 --chains
export SOURCE_DATE_EPOCH=1795000000
ingero-merge -q --align rank0.ilog rank1.ilog -o half.ilog
ingero-merge -q --align half.ilog rank2.ilog rank3.ilog -o twostep.ilog
ingero-merge -q --align rank0.ilog rank1.ilog rank2.ilog rank3.ilog -o onestep.ilog
body() { ingero-export -t cuda,host,stack,chain,snapshot,loss,process,clock "$1" | md5sum | cut -c1-8; }
[[ $(body twostep.ilog) == $(body onestep.ilog) ]] && echo "two steps = one step"
ingero-export -t provenance twostep.ilog | jq -r '.tool + " " + (.args | fromjson | .inputs | join(","))'
ingero-export -t header twostep.ilog | jq -r '"\(.node_index) \(.node) rank \(.rank)"'
# input order does not change the merged records
ingero-merge -q --align rank3.ilog rank1.ilog rank0.ilog rank2.ilog -o shuffled.ilog
[[ $(body shuffled.ilog) == $(body onestep.ilog) ]] && echo "input order does not matter"
mkdir again
(cd again && ingero-merge -q --align ../rank0.ilog ../rank1.ilog ../rank2.ilog ../rank3.ilog -o onestep.ilog)
mkdir first
(cd first && ingero-merge -q --align ../rank0.ilog ../rank1.ilog ../rank2.ilog ../rank3.ilog -o onestep.ilog)
cmp first/onestep.ilog again/onestep.ilog && echo "same bytes again"
# every record of every input is in the merge (plus the headers, node
# switches and provenance it adds)
n_in=0
for i in 0 1 2 3; do
	n_in=$((n_in + $(ingero-export -t cuda,host,stack,chain,snapshot,loss,process rank$i.ilog | wc -l)))
done
n_out=$(ingero-export -t cuda,host,stack,chain,snapshot,loss,process onestep.ilog | wc -l)
echo "records in: $n_in, out: $n_out"
