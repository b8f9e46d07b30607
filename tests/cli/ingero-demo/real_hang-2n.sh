# recorded for real: ingero demo hang --two-nodes, ranks 0-1 and 2-3 under a
# recorder each, merged by ingero-merge: the same checks as one recorder's
. "$INGERO_TESTS/cli/ingero-demo/ranks.bash"
run_demo hang --two-nodes
check_ranks 2
check_hang
check_hang_chain
