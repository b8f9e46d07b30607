# recorded for real: ingero demo gpu-leak allocates 16 MiB of device memory
# every 20 ms and never frees it until cudaMalloc fails with out of memory
# (the fake device holds 4.5 GiB); gpu-memory-leak must rank first (HIGH,
# above the gpu-oom chain of the same failure), its numbers - the
# allocations never freed, their call path, what was outstanding at the
# failure - recomputed from the records
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf --check -q gpu-leak -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog gpu-memory-leak "" "cudaMalloc" || exit 1
jq -se '[.[] | select(.type == "chain")][0].severity == "HIGH"' corr.jsonl >/dev/null ||
	{ echo "the leak chain is not HIGH" >&2; exit 1; }
