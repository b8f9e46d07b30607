# SPDX-License-Identifier: MIT
# Named ops (SPEC §5.17, ingero-record --api): every export shows the name
# the log's opname record gives, not the number.  tests/vectors/kinds has a
# call of cudaStreamCreateWithFlags, op 256 of its log, with raw arguments.
set -euo pipefail
v=$INGERO_TESTS/vectors/kinds.ilog
ingero-export -t cuda "$v" | jq -c 'select(.op != "cudaMalloc") | [.op, .layer, .args]'
ingero-export -f csv "$v" | grep -c ',cudaStreamCreateWithFlags,'
ingero-export -f prometheus "$v" | grep '^ingero_cuda_calls_total' | sed 's/node="[^"]*",//'
ingero-export -f otlp "$v" | jq -c '[.. | objects | select(.key? == "cuda.op") | .value.stringValue] | unique'
ingero-export -f perfetto "$v" | jq -c '[.. | objects | .name? // empty | strings | select(startswith("cudaStream"))] | unique'
# SQLite: the name in `ops`; two imports share one number for one name
ingero-export -f sqlite -o t.db "$v"
ingero-export -f sqlite -o t.db "$v"
sqlite3 t.db "SELECT o.op, o.name, o.layer, count(*) FROM events e JOIN ops o ON o.op = e.op
	WHERE o.op >= 256 GROUP BY o.op"
