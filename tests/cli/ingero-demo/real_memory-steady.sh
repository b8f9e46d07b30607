# recorded for real, the clean counterpart of memory-storm: the same host
# process outside the job allocates steadily (16 MiB every 50 ms) over the
# whole run - memory churn that is no storm against its own baseline - and
# the job runs steadily: no HIGH or MEDIUM chain, no memory-pressure chain,
# though the process's page allocations are in the log.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q memory-steady -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
no_pattern run.ilog memory-pressure || exit 1
n=$(ingero-export run.ilog | jq -s '[.[] | select(.type=="host" and .host_type=="page_alloc" and .comm=="preproc")] | length')
[ "$n" -ge 4 ] || { echo "only $n page_alloc records of the steady process" >&2; exit 1; }
