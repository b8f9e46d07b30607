# SPDX-License-Identifier: MIT
# --pid traces the named process only: a second CUDA process running the
# same library at the same time leaves nothing in the log.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

"$W" --iters 100 --ready-file ready1 --wait-file go --report one.json &
p1=$!
"$W" --iters 100 --ready-file ready2 --wait-file go --report two.json &
p2=$!
wait_for ready1
wait_for ready2
start_rec --pid "$p1"
touch go
wait "$p1" || fail "workload 1 failed"
wait "$p2" || fail "workload 2 failed"
stop_rec
export_log

assert_eq "counts of the traced process" "$(cuda_counts "$p1")" "$(jq -S -c .calls one.json)"
assert_eq "events of the other process" \
	"$(jq -s "[.[] | select(.pid==$p2)] | length" log.jsonl)" 0
assert_eq "processes in the log" \
	"$(jq -s -c '[.[] | select(.type=="cuda") | .pid] | unique' log.jsonl)" "[$p1]"
