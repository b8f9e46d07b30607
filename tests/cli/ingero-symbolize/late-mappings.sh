# SPDX-License-Identifier: MIT
# Mappings written after the stacks (a library noticed late) still resolve
# them, and the symbols still come before the stacks; the log arrives
# through a pipe, which cannot be read twice, so it is spooled.
. "$INGERO_TESTS/symbolize/common.sh"
record node-a --maps-after
first_map=$(ingero-export node-a/run.ilog | jq -r '.type' | grep -n -m1 '^mapping$' | cut -d: -f1)
last_stack=$(ingero-export node-a/run.ilog | jq -r '.type' | grep -n '^stack$' | tail -n1 | cut -d: -f1)
((first_map > last_stack)) && echo "input: every mapping after every stack"
cat node-a/run.ilog | ingero-symbolize >sym.ilog || exit 1
render sym.ilog | cmp - "$INGERO_TESTS/cli/ingero-symbolize/frames.stdout.exact" &&
	echo "from a pipe: the right frames"
ingero-export sym.ilog | jq -r 'select(.type == "symbol" or .type == "stack") | .type' | uniq |
	tr '\n' ' ' | sed 's/ $/\n/'
