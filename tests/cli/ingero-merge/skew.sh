# SPDX-License-Identifier: MIT
# Four ranks whose wall clocks are off by 0, +3, -7 and +40 ms: the offsets
# ingero-merge estimates from the NCCL collectives are within 0.5 ms of the
# injected ones, and the 40 ms node, beyond the default 10 ms threshold, is
# the one warned about.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 4 --skews 0,+3ms,-7ms,+40ms --steps 300
ingero-merge rank0.ilog rank1.ilog rank2.ilog rank3.ilog -o job.ilog 2>err.txt
# the provenance record carries each node's estimate
ingero-export -t provenance job.ilog | jq -r '.args | fromjson | .nodes[] |
	"\(.node) \(.method) \(.offset_ns) \(.uncertainty_ns) \(.matched)"' >est.txt
truth=(0 3000000 -7000000 40000000)
i=0
while read -r node method off unc matched; do
	err=$((off - truth[i]))
	err=${err#-}
	if ((i == 0)); then
		echo "$node: $method"
	elif ((err <= 500000)); then
		echo "$node: $method, within 0.5 ms of $((truth[i] / 1000)) us ($matched matched)"
	else
		echo "$node: $method, offset $off ns is $err ns from the truth"
	fi
	# the uncertainty is stated and small next to the error budget
	[[ $unc == null ]] || ((unc < 100000)) || echo "$node: uncertainty $unc ns"
	i=$((i + 1))
done <est.txt
grep -c 'warning' err.txt
grep 'warning' err.txt | sed 's/offset [^ ]* ms/offset X ms/'
# a tighter threshold warns about the 7 ms node as well; 0 never warns
ingero-merge -n --clock-skew-threshold 5ms rank*.ilog 2>&1 | grep -c warning
ingero-merge -n --clock-skew-threshold 0 rank*.ilog 2>&1 | grep -c warning || true
