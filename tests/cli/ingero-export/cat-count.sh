# SPDX-License-Identifier: MIT
# `cat a.ilog b.ilog` is one valid log: jq counts the records of both, and
# file arguments read in turn give the same stream.
set -euo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 500 --seed 1 -o a.ilog
"$synth" --events 300 --seed 2 --node node-b --frame-records 64 -o b.ilog
na=$(ingero-export --format jsonl a.ilog | jq -s length)
nb=$(ingero-export --format jsonl b.ilog | jq -s length)
nab=$(cat a.ilog b.ilog | ingero-export --format jsonl | jq -s length)
echo "a=$na b=$nb cat=$nab"
[[ $nab == $((na + nb)) ]]
cat a.ilog b.ilog | ingero-export >cat.jsonl
ingero-export a.ilog b.ilog >args.jsonl
cmp cat.jsonl args.jsonl
# b's records come after a's, under b's header
jq -r 'select(.type == "header") | .node' cat.jsonl
{ ingero-export a.ilog; ingero-export b.ilog; } | cmp - cat.jsonl
