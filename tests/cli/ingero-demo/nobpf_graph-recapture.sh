# ingero demo --no-bpf graph-recapture: the synthesized log is explained as staged (graph-recapture),
# the report printed, and the root cause's numbers match the log
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check graph-recapture -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^ingero demo: graph-recapture - ' out.txt && grep -q '(synthesized log: --no-bpf)' out.txt &&
	grep -q '^#1 .* graph-recapture ' out.txt && grep -q '^demo check: staged graph-recapture; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog graph-recapture "" ""
