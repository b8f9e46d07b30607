# ingero demo --no-bpf gpu-contention: the synthesized log is explained as staged (gpu-contention),
# the report printed, and the root cause's numbers match the log
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check gpu-contention -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^ingero demo: gpu-contention - ' out.txt && grep -q '(synthesized log: --no-bpf)' out.txt &&
	grep -q '^#1 .* gpu-contention ' out.txt && grep -q '^demo check: staged gpu-contention; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog gpu-contention "infer" "cudaStreamSynchronize"
