# SPDX-License-Identifier: MIT
# --help: stdout, exit 0, the style guide's sections, and every EXAMPLES
# line runs on a real recording.
. "$INGERO_TESTS/symbolize/common.sh"
set -e
ingero-symbolize --help >help.txt 2>err.txt
[[ ! -s err.txt ]]
ingero-symbolize -h | cmp - help.txt
for s in USAGE OPTIONS EXAMPLES "EXIT STATUS"; do
	grep -q "^$s" help.txt || { echo "no $s section"; exit 1; }
done
record node-a
cp node-a/run.ilog .
sed -n '/^EXAMPLES/,/^[A-Z]/p' help.txt | sed -n 's/^  \(ingero-symbolize .*\)/\1/p' |
	sed 's/ *#.*//' >examples.txt
n=0
while IFS= read -r ex; do
	bash -o pipefail -c "$ex" >out.txt 2>err.txt || { echo "example failed: $ex"; cat err.txt; exit 1; }
	n=$((n + 1))
done <examples.txt
echo "$n examples ran"
