# recorded for real: ingero demo straggler, the 4-rank job under one recorder
# (tests/cli/ingero-demo/ranks.bash says what is checked)
. "$INGERO_TESTS/cli/ingero-demo/ranks.bash"
run_demo straggler
check_ranks 1
check_straggler
check_straggler_chain exact
