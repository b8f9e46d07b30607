# SPDX-License-Identifier: MIT
# Clean simulated jobs of 2, 4 and 16 ranks over several seeds (whoever
# arrives last at a collective is a matter of chance there), each as one
# system-wide log and as per-rank logs merged: no chain, no warning.
set -uo pipefail
job="$INGERO_OUT"/tests/tools/job
for n in 2 4 16; do
	for seed in 1 2 3; do
		"$job" -o one.ilog --ranks $n --seed $seed --steps 200 || exit 1
		"$job" -o r --per-rank --ranks $n --seed $seed --steps 200 || exit 1
		ingero-merge -q -o merged.ilog r[0-9]*.ilog || exit 1
		for f in one merged; do
			ingero-correlate --json $f.ilog >$f.jsonl 2>err || exit 1
			[[ ! -s err ]] || { echo "$n ranks, seed $seed, $f: $(cat err)"; exit 1; } >&2
			if jq -e 'select(.type == "chain")' $f.jsonl >/dev/null; then
				echo "$n ranks, seed $seed, $f:" >&2
				jq -c 'select(.type == "chain") | [.pattern, .pid, .title]' $f.jsonl >&2
				exit 1
			fi
		done
		rm -f r[0-9]*.ilog
	done
done
