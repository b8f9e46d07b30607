# recorded for real: ingero demo hang --sigkill --two-nodes, the recorders
# killed while the job hangs, as when the nodes are lost: what they wrote
# each second still says that ranks 0, 1 and 3 are in the collective
# (inflight records) and rank 2 is not
. "$INGERO_TESTS/cli/ingero-demo/ranks.bash"
run_demo hang --sigkill --two-nodes
check_ranks 2
check_hang
[[ $(q '[.[] | select(.type == "inflight")] | length') -ge 3 ]] || fail "no inflight records"
check_hang_chain
