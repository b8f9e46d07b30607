# ingero demo --no-bpf cold-start: the synthesized log is explained as staged (cold-start),
# the report printed, and the root cause's numbers match the log
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --no-bpf --check cold-start -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^ingero demo: cold-start - ' out.txt && grep -q '(synthesized log: --no-bpf)' out.txt &&
	grep -q '^#1 .* cold-start ' out.txt && grep -q '^demo check: staged cold-start; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
check_chain run.ilog cold-start "" ""
