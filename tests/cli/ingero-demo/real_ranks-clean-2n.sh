# recorded for real: ingero demo ranks-clean --two-nodes, ranks 0-1 and 2-3 under a
# recorder each, merged by ingero-merge: the same checks as one recorder's
. "$INGERO_TESTS/cli/ingero-demo/ranks.bash"
run_demo ranks-clean --two-nodes
check_ranks 2
check_clean
check_clean_chains
