# SPDX-License-Identifier: MIT
# --cgroup PATH traces only the CUDA processes in that cgroup (a container's):
# of two processes running the same library at the same time, the one in a
# cgroup made for the test is recorded, with its cgroup path and id in its
# process record, and the other leaves no CUDA event; a path that is no
# cgroup is a usage error.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
make_cgroup ingero-test-$$
trap 'rmdir "$cg" 2>/dev/null' EXIT
( echo "$BASHPID" >"$cg/cgroup.procs" && exec "$W" --iters 100 --ready-file ready1 --wait-file go \
	--report one.json ) &
p1=$!
"$W" --iters 100 --ready-file ready2 --wait-file go --report two.json &
p2=$!
wait_for ready1
wait_for ready2
start_rec --all-users --cgroup "$rel"
touch go
wait "$p1" || fail "workload 1 failed"
wait "$p2" || fail "workload 2 failed"
stop_rec
export_log
assert_eq "counts of the process in the cgroup" "$(cuda_counts "$p1")" "$(jq -S -c .calls one.json)"
assert_eq "processes in the log" \
	"$(jq -s -c '[.[] | select(.type=="cuda") | .pid] | unique' log.jsonl)" "[$p1]"
assert_eq "its process record's cgroup" \
	"$(jq -r "select(.type==\"process\" and .pid==$p1) | .cgroup" log.jsonl | head -n 1)" "$rel"
assert_eq "its cgroup id" \
	"$(jq -r "select(.type==\"process\" and .pid==$p1) | .cgroup_id" log.jsonl | head -n 1)" \
	"$(stat -c %i "$cg")"
ingero-record --cgroup "$rel/none" -d 1s -o x.ilog 2>err.txt && fail "a missing cgroup was accepted"
grep -q "^ingero-record: --cgroup: '.*none': No such file or directory" err.txt ||
	fail "message: $(cat err.txt)"
exit 0
