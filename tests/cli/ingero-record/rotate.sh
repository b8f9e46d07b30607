# SPDX-License-Identifier: MIT
# --rotate: the files of a rotated recording hold every call exactly once
# (per-op counts equal the workload's own and an unrotated recording's of
# the same workload), and each file is a complete log on its own: a header
# first, and for the calls in it the process, mapping and stack records a
# reader needs.  Bad --rotate/--keep values and an unwritable folder: exit
# 2 before anything is attached.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
rc=0; ingero-record --rotate 10 -o x.ilog 2>err || rc=$?
[[ $rc == 2 ]] && grep -q "bad size or duration" err || fail "--rotate 10: exit $rc"
rc=0; ingero-record --rotate 1s --keep 0 -o x.ilog 2>err || rc=$?
[[ $rc == 2 ]] || fail "--keep 0: exit $rc"
rc=0; ingero-record --keep 3 -o x.ilog 2>err || rc=$?
[[ $rc == 2 ]] || fail "--keep without --rotate: exit $rc"
rc=0; ingero-record --rotate 1s -o /nonexistent/x.ilog -d 1s 2>err || rc=$?
[[ $rc == 2 && ! -e x.ilog ]] || fail "unwritable folder: exit $rc"
grep -q "recording to" err && fail "unwritable folder: the recorder started"

export FAKECUDA_LAT_NS=120000
mix=cudaLaunchKernel=4,cudaMemcpyAsync,cudaStreamSynchronize,cuLaunchKernel
# unrotated
record_workload "" --mix "$mix" --iters 4000
want=$(jq -c '.calls | to_entries | sort_by(.key) | from_entries' report.json)
plain=$(cuda_counts "$wpid" | jq -c 'to_entries | sort_by(.key) | from_entries')
assert_eq "unrotated per-op counts" "$plain" "$want"
rm -f rec.ilog
# rotated every second, files of an earlier run under another name left alone
touch other.20200101T000000Z.ilog
rm -f ready go
"$W" --mix "$mix" --iters 4000 --ready-file ready --wait-file go --report report2.json &
wpid=$!
wait_for ready
start_rec --pid "$wpid" --rotate 1s --keep 100
touch go
wait "$wpid" || fail "workload failed"
stop_rec
want=$(jq -c '.calls | to_entries | sort_by(.key) | from_entries' report2.json)
files=(rec.*Z*.ilog)
((${#files[@]} >= 3)) || fail "${#files[@]} files after 3 s of --rotate 1s"
[[ -e other.20200101T000000Z.ilog && ! -e rec.ilog ]] || fail "files not of the recording touched"
# the files given as arguments, and concatenated
timeout 120 ingero-export "${files[@]}" >log.jsonl || fail "ingero-export of the files failed"
rotated=$(cuda_counts "$wpid" | jq -c 'to_entries | sort_by(.key) | from_entries')
assert_eq "rotated per-op counts" "$rotated" "$want"
cat "${files[@]}" | timeout 120 ingero-export >cat.jsonl || fail "ingero-export of the concatenation failed"
cmp -s log.jsonl cat.jsonl || fail "concatenated files read differently"
# each file alone: a header first; its calls' process, mappings, stacks
for f in "${files[@]}"; do
	timeout 60 ingero-export "$f" >one.jsonl || fail "$f does not read alone"
	[[ $(head -n 1 one.jsonl | jq -r .type) == header ]] || fail "$f: no header first"
	ncuda=$(jq -s "[.[] | select(.type==\"cuda\" and .pid==$wpid)] | length" one.jsonl)
	((ncuda == 0)) && continue
	jq -e -s "any(.[]; .type==\"process\" and .pid==$wpid)" one.jsonl >/dev/null ||
		fail "$f: calls of $wpid but no process record"
	jq -e -s "any(.[]; .type==\"mapping\" and .pid==$wpid and (.path | endswith(\"libcudart.so.13\")))" \
		one.jsonl >/dev/null || fail "$f: calls of $wpid but no mapping of libcudart"
	missing=$(jq -s '[.[] | select(.type=="stack") | .id] as $have
		| [.[] | select(.type=="cuda" and .stack_id != "0x0") | .stack_id] | unique
		| map(select(. as $s | $have | index($s) | not)) | length' one.jsonl)
	assert_eq "$f: stacks used without their record" "$missing" 0
done
# the recorder's files of one run merge as one node
timeout 120 ingero-merge -q -o merged.ilog "${files[@]}" || fail "ingero-merge of the files failed"
ingero-export merged.ilog >log.jsonl
assert_eq "merged per-op counts" "$(cuda_counts "$wpid" | jq -c 'to_entries | sort_by(.key) | from_entries')" "$want"
echo "${#files[@]} files, per-op counts exact" >&2
