# SPDX-License-Identifier: MIT
# --align: the merged output orders the collectives as they happened.  The
# n-th ncclAllReduce of every rank must come out before the (n+1)-th of any
# rank; without --align the +40 ms node's calls land 40 ms late (each step
# is 1-2 ms), with it they interleave correctly.  The aligned anchors say
# so too: every node's wall time of the same collective agrees.
set -euo pipefail
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 4 --skews 0,+3ms,-7ms,+40ms --steps 200
order() {
	# per output record: the collective number on its node; count records
	# whose number is below the highest seen before them
	ingero-export -t cuda "$1" | jq -r 'select(.op == "ncclAllReduce") | .node_index // 0' |
		awk '{ n = seen[$1]++; if (n < max) bad++; if (n > max) max = n }
		     END { printf "%d of %d out of order\n", bad, NR }'
}
ingero-merge -q rank*.ilog -o plain.ilog
ingero-merge -q --align rank*.ilog -o aligned.ilog
printf 'plain: '; order plain.ilog | sed 's/^[1-9][0-9]* of/some of/'
printf 'aligned: '; order aligned.ilog
# the spread of the n-th sync's end across ranks: tens of microseconds
# once aligned, tens of milliseconds before
spread() {
	ingero-export -t cuda "$1" | jq -r 'select(.op == "cudaStreamSynchronize") |
		"\(.node_index // 0) \(.ts_ns + .dur_ns)"' >syncs.txt
	ingero-export -t header "$1" | jq -r '"\(.node_index) \(.mono_ns) \(.real_ns)"' >anchors.txt
	awk 'NR == FNR { mono[$1] = $2; real[$1] = $3; next }
	     { k = $1 " " n[$1]++; w = real[$1] + ($2 - mono[$1]); i = n[$1];
	       if (!(i in lo) || w < lo[i]) lo[i] = w; if (!(i in hi) || w > hi[i]) hi[i] = w }
	     END { for (i in lo) if (hi[i] - lo[i] > m) m = hi[i] - lo[i]; print (m < 100000 ? "under 0.1 ms" : "over 0.1 ms") }' \
		anchors.txt syncs.txt
}
printf 'plain sync spread: '; spread plain.ilog
printf 'aligned sync spread: '; spread aligned.ilog
