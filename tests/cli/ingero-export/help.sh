# SPDX-License-Identifier: MIT
# --help: stdout, exit 0, the sections the style guide asks for; and every
# line of its EXAMPLES runs (on synthesized logs) and prints JSON or a count.
set -euo pipefail
synth=$INGERO_OUT/tests/tools/synth
ingero-export --help >help.txt 2>err.txt
[[ ! -s err.txt ]]
for s in USAGE OPTIONS EXAMPLES "EXIT STATUS"; do
	grep -q "^$s" help.txt || { echo "no $s section"; exit 1; }
done
ingero-export -h | cmp - help.txt
"$synth" --events 3000 -o run.ilog
"$synth" --events 500 --seed 2 -o a.ilog
"$synth" --events 700 --seed 3 -o b.ilog
sed -n '/^EXAMPLES/,/^[A-Z]/p' help.txt | sed -n 's/^  \(ingero-export\|cat\) /\1 /p' >examples.txt
n=0
while IFS= read -r ex; do
	bash -o pipefail -c "$ex" >out.txt || { echo "example failed: $ex"; exit 1; }
	# JSON lines, or jq's output (a count)
	jq -e . out.txt >/dev/null || { echo "example printed no JSON: $ex"; exit 1; }
	n=$((n + 1))
done <examples.txt
((n >= 2)) || { echo "only $n examples found"; exit 1; }
