# SPDX-License-Identifier: MIT
# Bad inputs give one clear error and exit 2, or a documented rename with a
# warning; nothing is mixed silently.
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
$synth --events 200 --node gpu-a --seed 1 -o a.ilog
$synth --events 200 --node gpu-b --seed 2 -o b.ilog
$synth --events 200 --node gpu-a --seed 3 -o a-again.ilog   # same name, another recording
$synth --events 200 --node "" --seed 4 -o unnamed.ilog
$synth --events 200 --node gpu-c --seed 5 --version-major 0 -o old.ilog
printf 'not a log\n' >notes.txt
# a log with no header: one zstd frame holding a clock record
printf '\x94\x02\x01\x02\x03' >clock.msgpack
zstd -q clock.msgpack -o noheader.ilog
: >empty.ilog
try() {
	local rc=0
	ingero-merge -n "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc"
	grep -v ': node [0-9]' err.txt | sed 's/^/  /'
}
try a.ilog a.ilog
try a.ilog b.ilog old.ilog
try a.ilog unnamed.ilog
try a.ilog --node gpu-u unnamed.ilog
try a.ilog --node gpu-x b.ilog
try a.ilog --force-node --node gpu-x b.ilog
try a.ilog a-again.ilog b.ilog
try a.ilog noheader.ilog
try a.ilog notes.txt
try a.ilog empty.ilog
try a.ilog missing.ilog
try a.ilog --node
try --clock-skew-threshold soon a.ilog
try --reference gpu-z a.ilog b.ilog
try - - <a.ilog
# renamed nodes are what the output's headers say
ingero-merge -q a.ilog a-again.ilog -o dup.ilog
ingero-export -t header dup.ilog | jq -r '"\(.node_index // 0) \(.node) session \(.session_id)"'
# --force-node renames in the output too
ingero-merge -q --force-node --node renamed b.ilog -o one.ilog
ingero-export -t header one.ilog | jq -r .node
