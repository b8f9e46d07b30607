# ingero demo --no-bpf memcpy-bottleneck: the synthesized log is explained as staged (memcpy-bound),
# the report printed, and the root cause's numbers match the log
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check memcpy-bottleneck -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^ingero demo: memcpy-bottleneck - ' out.txt && grep -q '(synthesized log: --no-bpf)' out.txt &&
	grep -q '^#1 .* memcpy-bound ' out.txt && grep -q '^demo check: staged memcpy-bound; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog memcpy-bound "" ""
