# recorded for real: ingero demo hang, the 4-rank job under one recorder
# (tests/cli/ingero-demo/ranks.bash says what is checked)
. "$INGERO_TESTS/cli/ingero-demo/ranks.bash"
run_demo hang
check_ranks 1
check_hang
check_hang_chain
