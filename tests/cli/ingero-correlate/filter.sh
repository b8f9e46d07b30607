# filter mode: every input record passes through unchanged, then the chains
# and a provenance record are appended; the output is a valid log
"$INGERO_OUT/tests/tools/scensynth" gpu-contention --seed 3 -o in.ilog || exit 1
ingero-correlate in.ilog -o out.ilog || exit 1
ingero-export in.ilog >in.jsonl && ingero-export out.ilog >out.jsonl || exit 1
n=$(wc -l <in.jsonl)
head -n "$n" out.jsonl | cmp - in.jsonl || { echo "input records changed" >&2; exit 1; }
tail -n +"$((n + 1))" out.jsonl | jq -r .type | sort | uniq -c >tail.txt
grep -q ' chain$' tail.txt && grep -q ' 1 provenance$' tail.txt || { cat tail.txt >&2; exit 1; }
[ "$(tail -n +"$((n + 1))" out.jsonl | jq -r .type | grep -cv '^chain$\|^provenance$')" = 0 ] || exit 1
# the appended chains are the ones --json reports, in rank order
ingero-correlate --json in.ilog | jq -r 'select(.type=="chain") | .pattern' >want.txt
jq -r 'select(.type=="chain") | .pattern' out.jsonl | cmp - want.txt || exit 1
jq -se 'any(.[]; .type=="chain" and (.metrics | fromjson | .t0_ns > 0))' out.jsonl >/dev/null || exit 1
# correlating its own output again passes the old chains through and adds the same again
ingero-correlate out.ilog | ingero-export | jq -r 'select(.type=="chain") | .pattern' >twice.txt
[ "$(wc -l <twice.txt)" = "$((2 * $(wc -l <want.txt)))" ]
