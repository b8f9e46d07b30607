# ingero demo --no-bpf incident: the synthesized log is explained as staged (cpu-contention),
# the report printed, and the root cause's numbers match the log
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check incident -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^ingero demo: incident - ' out.txt && grep -q '(synthesized log: --no-bpf)' out.txt &&
	grep -q '^#1 .* cpu-contention ' out.txt && grep -q '^demo check: staged cpu-contention; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog cpu-contention "backup" "cudaStreamSynchronize"
