# statistics against jq over the raw records: counts, totals and max exact,
# nearest-rank p50/p95/p99 within 0.4% (the histogram's bound), per op and
# per process; windows add up
"$INGERO_OUT/tests/tools/scensynth" gpu-contention --seed 5 -o run.ilog || exit 1
ingero-export -t cuda run.ilog >cuda.jsonl || exit 1
ingero-correlate --json --per-process --windows run.ilog >stats.jsonl || exit 1
jq -n --slurpfile s stats.jsonl --slurpfile c cuda.jsonl '
  def rank($q; $n): (($n * (($q * 1000) | round) + 999) / 1000 | floor);
  def quant($q): sort as $v | $v[rank($q; $v | length) - 1];
  def near($a; $b): (($a - $b) | fabs) <= $b / 256 + 0.5;
  ($c | group_by([.pid, .op])) as $groups |
  [$s[] | select(.type == "stat")] as $rows |
  ($rows | length) == ($groups | length) and
  all($groups[]; . as $g | ($g | map(.dur_ns)) as $d |
    ($rows | map(select(.pid == $g[0].pid and .op == $g[0].op)) | first) as $r |
    $r != null and $r.count == ($d | length) and $r.total_ns == ($d | add) and
    $r.max_ns == ($d | max) and $r.min_ns == ($d | min) and
    near($r.p50_ns; $d | quant(0.5)) and near($r.p95_ns; $d | quant(0.95)) and
    near($r.p99_ns; $d | quant(0.99)))
' | grep -qx true || { echo "per-process stats differ from jq" >&2; exit 1; }
# windows: per (pid, op) the window counts add up to the whole-run count
jq -s '[.[] | select(.type=="window")] | group_by([.pid, .op]) | map({k: [.[0].pid, .[0].op], n: (map(.count) | add)})' stats.jsonl >w.json
jq -s '[.[] | select(.type=="stat")] | map({k: [.pid, .op], n: .count}) | sort_by(.k)' stats.jsonl >s.json
jq -e --slurpfile w w.json '($w[0] | sort_by(.k)) == .' s.json >/dev/null || { echo "window counts differ" >&2; exit 1; }
# without --per-process: one row per op over both processes
ingero-correlate --json run.ilog | jq -s --slurpfile c cuda.jsonl '
  [.[] | select(.type == "stat")] as $rows |
  ($c | group_by(.op)) as $g | ($rows | length) == ($g | length) and
  all($g[]; . as $x | ($rows | map(select(.op == $x[0].op)) | first | .count) == ($x | length))' |
  grep -qx true
