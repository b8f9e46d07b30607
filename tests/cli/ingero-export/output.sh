# SPDX-License-Identifier: MIT
# -o FILE and stdin conventions, and a failed write is an error.
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 100 -o a.ilog
ingero-export a.ilog >want.jsonl
ingero-export -o out.jsonl a.ilog >stdout.txt && cmp want.jsonl out.jsonl && [[ ! -s stdout.txt ]] &&
	echo "-o FILE: written, stdout empty"
ingero-export --output=out2.jsonl a.ilog && cmp want.jsonl out2.jsonl && echo "--output=FILE"
ingero-export -o - a.ilog | cmp - want.jsonl && echo "-o -: stdout"
ingero-export <a.ilog | cmp - want.jsonl && echo "no file: stdin"
ingero-export - <a.ilog | cmp - want.jsonl && echo "-: stdin"
cat a.ilog | ingero-export -f jsonl - | cmp - want.jsonl && echo "a pipe"
rc=0
ingero-export a.ilog >/dev/full 2>err.txt || rc=$?
echo "/dev/full: exit $rc: $(cat err.txt)"
rc=0
ingero-export -o /dev/full a.ilog 2>err.txt || rc=$?
echo "-o /dev/full: exit $rc: $(cat err.txt)"
