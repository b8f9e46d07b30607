# recorded for real: ingero demo ranks-clean, the 4-rank job under one recorder
# (tests/cli/ingero-demo/ranks.bash says what is checked)
. "$INGERO_TESTS/cli/ingero-demo/ranks.bash"
run_demo ranks-clean
check_ranks 1
check_clean
check_clean_chains
