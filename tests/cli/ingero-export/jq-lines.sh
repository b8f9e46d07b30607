# SPDX-License-Identifier: MIT
# Every output line is one JSON object jq parses, for every kind and op,
# unknown kinds, the golden logs and the format test vectors.
set -euo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 5000 --mix all --stacks 50 --unknown-kind -o all-ops.ilog
"$synth" --events 200 --version-major 0 -o major0.ilog
checked=0
for f in all-ops.ilog major0.ilog "$INGERO_TESTS"/data/*.ilog "$INGERO_TESTS"/vectors/*.ilog; do
	[[ -e $f ]] || continue
	ingero-export "$f" >out.jsonl 2>/dev/null || true
	lines=$(wc -l <out.jsonl)
	# one value per line, each an object with a "type"
	objs=$(jq -c . out.jsonl | wc -l)
	typed=$(jq -s 'map(select(type == "object" and (.type | type) == "string")) | length' out.jsonl)
	if [[ $lines != "$objs" || $lines != "$typed" ]]; then
		echo "$f: $lines lines, $objs JSON values, $typed typed objects"
		exit 1
	fi
	checked=$((checked + lines))
done
((checked > 10000))
# every op name and host type of the all-ops log renders as a name
ingero-export all-ops.ilog | jq -r 'select(.type == "cuda") | "\(.layer) \(.op)"' | sort -u | wc -l
ingero-export all-ops.ilog | jq -r 'select(.type == "cuda") | .op | numbers' | wc -l
