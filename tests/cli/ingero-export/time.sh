# SPDX-License-Identifier: MIT
# --since/--until as RFC 3339 (any offset), @epoch and +duration from the
# log's start all select the same window, and the window is what a jq
# comparison on the rendered "time" selects.  Records without a timestamp
# (header, schemas, stacks) pass as context.
set -euo pipefail
synth=$INGERO_OUT/tests/tools/synth
# the monotonic clock at 1000 s is 2026-11-22T16:20:00Z (@1795364400)
"$synth" --events 3000 --real-ns 1795364400000000000 --mono-ns 1000000000000 -o run.ilog
ingero-export run.ilog >all.jsonl
ingero-export --since 2026-11-22T16:20:00.010Z --until 2026-11-22T16:20:00.020Z run.ilog >w1.jsonl
ingero-export --since @1795364400.010 --until @1795364400.02 run.ilog >w2.jsonl
ingero-export --since +10ms --until +20ms run.ilog >w3.jsonl
ingero-export --since 2026-11-22T18:20:00.01+02:00 --until '2026-11-22 11:20:00.020-05:00' run.ilog >w4.jsonl
cmp w1.jsonl w2.jsonl
cmp w1.jsonl w3.jsonl
cmp w1.jsonl w4.jsonl
jq -c 'select(.time == null or (.time >= "2026-11-22T16:20:00.010000000Z" and .time < "2026-11-22T16:20:00.020000000Z"))' \
	all.jsonl | cmp - w1.jsonl
echo "window: $(jq -r 'select(.time) | .type' w1.jsonl | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
echo "context: $(jq -r 'select(.time == null) | .type' w1.jsonl | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
# open-ended windows
ingero-export --since +30ms run.ilog | jq -c 'select(.time)' >s.jsonl
jq -c 'select(.time and .time >= "2026-11-22T16:20:00.030000000Z")' all.jsonl | cmp - s.jsonl
ingero-export --until 2026-11-22T16:20:00.001Z run.ilog | jq -c 'select(.time)' >u.jsonl
jq -c 'select(.time and .time < "2026-11-22T16:20:00.001000000Z")' all.jsonl | cmp - u.jsonl
echo "since +30ms: $(wc -l <s.jsonl), until 1ms: $(wc -l <u.jsonl)"
# an empty window leaves only context
echo "empty window: $(ingero-export --since +20ms --until +10ms run.ilog | jq -c 'select(.time)' | wc -l)"
