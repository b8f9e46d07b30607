# recorded for real: ingero demo isolated-stalls runs its workload on the fake CUDA
# libraries under ingero-record (uprobes + tracepoints): 12 synchronizes at random
# times (ilog_scenario_stall_times) wait 200 ms on the stalling copy of the
# runtime, the host idle.  isolated-stall must rank first, count the 12 stalled
# calls (+-2: a loaded machine can delay a call as long, or stretch one), name the
# GPU side, and every number of its root cause must match the recorded events
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q isolated-stalls -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog isolated-stall "" cudaStreamSynchronize || exit 1
jq -se '[.[] | select(.type=="chain")][0].metrics |
	(.stalls >= 10 and .stalls <= 14) and .side == "GPU" and .shape == "bimodal"' corr.jsonl >/dev/null ||
	{ jq -c 'select(.type=="chain") | .metrics' corr.jsonl >&2; exit 1; }
