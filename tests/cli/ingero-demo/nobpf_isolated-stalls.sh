# ingero demo --no-bpf isolated-stalls: the synthesized log is explained as staged
# (isolated-stall, all 12 stalls, GPU side), the report printed, and the root
# cause's numbers match the log
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check isolated-stalls -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^#1 .* isolated-stall ' out.txt && grep -q '^demo check: staged isolated-stall; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog isolated-stall "" cudaStreamSynchronize || exit 1
jq -se '[.[] | select(.type=="chain")][0].metrics | .stalls == 12 and .side == "GPU"' corr.jsonl >/dev/null ||
	{ jq -c 'select(.type=="chain") | .metrics' corr.jsonl >&2; exit 1; }
