# recorded for real, the clean counterpart of memory-mild: the same process
# outside the job allocates at 0.5% of the available memory per second for
# the same third of the run, and the job runs steadily - a storm under the
# edge that coincides with no slowdown is named nowhere: no memory-pressure
# chain, no chain of MEDIUM or worse, though its page allocations are in the
# log.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q memory-mild-ok -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
no_pattern run.ilog memory-pressure || exit 1
ingero-export run.ilog >recs.jsonl || exit 1
n=$(jq -s '[.[] | select(.type=="host" and .host_type=="page_alloc" and .comm=="preproc") | .value] | add // 0' recs.jsonl)
[ "$n" -ge 1000 ] || { echo "only $n pages allocated by the storm's process" >&2; exit 1; }
# the job ran through the storm: its CUDA calls go on past the end of the
# storm's last aggregate of 1000 pages or more
jq -se '([.[] | select(.type=="host" and .host_type=="page_alloc" and .comm=="preproc" and .value >= 1000) |
		.ts_ns + .dur_ns] | max) as $s |
	([.[] | select(.type=="process" and .comm=="train") | .pid] | first) as $p |
	([.[] | select(.type=="cuda" and .pid==$p) | .ts_ns] | max) as $j | $j > $s' recs.jsonl >/dev/null ||
	{ echo "the job stopped before the storm ended" >&2; exit 1; }
