# ingero demo --no-bpf periodic-spike: the synthesized log is explained as staged (periodic-spike),
# the report printed, and the root cause's numbers match the log
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check periodic-spike -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^ingero demo: periodic-spike - ' out.txt && grep -q '(synthesized log: --no-bpf)' out.txt &&
	grep -q '^#1 .* periodic-spike ' out.txt && grep -q '^demo check: staged periodic-spike; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog periodic-spike "" ""
