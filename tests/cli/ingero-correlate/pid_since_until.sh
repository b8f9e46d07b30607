# --pid and --since/--until restrict the analysis
"$INGERO_OUT/tests/tools/scensynth" gpu-contention --seed 4 -o run.ilog || exit 1
infer=$(ingero-export -t process run.ilog | jq -r 'select(.comm=="infer") | .pid')
ingero-correlate --json --per-process --pid "$infer" run.ilog >p.jsonl || exit 1
[ "$(jq -r 'select(.type=="stat") | .pid' p.jsonl | sort -u)" = "$infer" ] || exit 1
# no other CUDA process in view: no gpu-contention chain
jq -se 'any(.[]; .type=="chain" and .pattern=="gpu-contention") | not' p.jsonl >/dev/null || exit 1
# the first 2 s only: counts equal jq's over the same wall-clock window
ingero-correlate --json --until +2s run.ilog >u.jsonl || exit 1
got=$(jq -s '[.[] | select(.type=="stat") | .count] | add' u.jsonl)
mono=$(ingero-export -t header run.ilog | jq '.mono_ns')
want=$(ingero-export -t cuda run.ilog | jq -s --argjson m "$mono" '[.[] | select(.ts_ns < $m + 2000000000)] | length')
[ "$got" = "$want" ] || { echo "--until +2s: $got calls, jq says $want" >&2; exit 1; }
ingero-correlate --json --since +2s run.ilog | jq -s '[.[] | select(.type=="stat") | .count] | add' >s.txt
total=$(ingero-export -t cuda run.ilog | wc -l)
[ "$(( $(cat s.txt) + got ))" = "$total" ]
