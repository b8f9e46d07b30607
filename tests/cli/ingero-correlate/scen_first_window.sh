# SPDX-License-Identifier: MIT
# A page-allocation aggregate that covered much more time than the others
# (an older recorder's first window, which also held its programs' load:
# seconds on a loaded host) must not dilute the rates of the others: each
# window's rate is taken from its own aggregates' lengths.  With it, the
# memory-pressure storm (well above the rule's edge) stays a certain
# memory-pressure chain, HIGH as without it, never "likely ... under the
# memory rule's edge" with a share over that edge (a CI run under load
# said "5.20% ... (certain from 1.0%)").  scensynth --first-window NS adds
# that aggregate for a short-lived process.
S=$INGERO_OUT/tests/tools/scensynth
fail() { echo "$*" >&2; exit 1; }
chain() { ingero-correlate --json run.ilog | jq -c 'select(.type=="chain" and .pattern=="memory-pressure")'; }
for seed in 1 2; do
	"$S" memory-pressure --seed $seed -o run.ilog || exit 1
	want=$(chain | jq -r .severity)
	[ "$want" = HIGH ] || fail "seed $seed: memory-pressure without the long window: $want"
	for ns in 3000000000 10000000000 30000000000; do
		"$S" memory-pressure --seed $seed --first-window $ns -o run.ilog || exit 1
		chain >c.jsonl
		jq -se --arg want "$want" 'length == 1 and (.[0] | .severity == $want and
			(.metrics.likely // 0) == 0 and (.root_cause | test("likely the cause") | not))' \
			c.jsonl >/dev/null || fail "seed $seed, a first window of $ns ns: $(cat c.jsonl)"
		# no chain of any kind says "under the edge" of a share over it
		ingero-correlate --json run.ilog | jq -r 'select(.type=="chain") | .root_cause' |
			sed -n 's/.*under the memory rule.s edge: a rise of \([0-9.]*\)% .*(certain from \([0-9.]*\)%).*/\1 \2/p' |
			while read -r sh edge; do
				awk -v s="$sh" -v e="$edge" 'BEGIN { exit !(s < e) }' ||
					fail "seed $seed: a share of $sh% called under the edge of $edge%"
			done || exit 1
	done
done
echo "the storm stays a certain memory-pressure chain beside a long first window" >&2
