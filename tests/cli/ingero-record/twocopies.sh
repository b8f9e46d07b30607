# SPDX-License-Identifier: MIT
# Two copies of libcudart in one process (the system one and a venv-style
# copy) are both traced: calls through either are recorded, and the
# mappings of both files are in the log.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

mkdir -p venv/lib/python3/site-packages/nvidia/cuda_runtime/lib
copy=$PWD/venv/lib/python3/site-packages/nvidia/cuda_runtime/lib
cp "$FAKE"/libcudart.so.13 "$copy"/
"$W" --second-copy "$copy" --iters 100 --ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
grep -q "$copy/libcudart.so.13" "/proc/$wpid/maps" || fail "the workload did not map the copy"
start_rec
touch go
wait "$wpid" || fail "workload failed"
stop_rec
export_log

assert_eq "counts through both copies" "$(cuda_counts "$wpid")" "$(jq -S -c .calls report.json)"
paths=$(jq -s -c "[.[] | select(.type==\"mapping\" and .pid==$wpid and (.path|endswith(\"libcudart.so.13\"))) | .path] | unique" log.jsonl)
assert_eq "both libraries mapped" "$paths" "$(jq -c -n --arg a "$FAKE/libcudart.so.13" --arg b "$copy/libcudart.so.13" '[$a, $b] | sort')"
# the calls alternate between the copies: their entry addresses (ips[0]) are in both
ids=$(jq -s -c '[.[] | select(.type=="stack") | .ips[0]] | unique | length' log.jsonl)
((ids >= 2 * 5)) || fail "stacks start in $ids distinct functions, want both copies of 5"
