# SPDX-License-Identifier: MIT
# Real recordings (the real recorder, eBPF in the real kernel, the fake
# CUDA workload): one recorded to a file and exported, one streamed live
# (`ingero-record -o - | ingero-export --format clickhouse`).  Both land
# whole; the two processes' stacks, at other addresses (ASLR) and with
# other recorder ids (which hash the pid), get the same fleet ids; and
# every id is the documented rule applied to the log (logcalc.py).
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
# need_bpf, start_rec/stop_rec (to rec.ilog; a later -o wins), wait_for,
# $W (the workload) from the recorder's tests
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
start_ch 1

MIX=cudaMalloc,cudaMemcpy,cudaLaunchKernel=4,cudaStreamSynchronize,cudaFree

# 1: recorded to a file, then exported
"$W" --mix "$MIX" --iters 40 --ready-file ready1 --wait-file go1 --report report1.json &
w1=$!
wait_for ready1
start_rec --pid "$w1"
touch go1
wait "$w1" || fail "workload 1 failed"
stop_rec
mv rec.ilog one.ilog
export_ch --url "$CH_URL" --create one.ilog 2>err.txt || fail "export one.ilog: $(cat err.txt)"

# 2: streamed live through a pipe
"$W" --mix "$MIX" --iters 40 --ready-file ready2 --wait-file go2 --report report2.json &
w2=$!
wait_for ready2
mkfifo rec.pipe exp.pipe
export_ch --url "$CH_URL" <exp.pipe 2>exp.err &
xpid=$!
tee two.ilog <rec.pipe >exp.pipe &
tpid=$!
start_rec -o - --pid "$w2" >rec.pipe
touch go2
wait "$w2" || fail "workload 2 failed"
stop_rec
wait "$tpid"
wait "$xpid" || fail "live export: $(cat exp.err)"

ingero-export one.ilog >one.jsonl
ingero-export two.ilog >two.jsonl
for f in one two; do
	want=$(jq -c 'select(.type == "cuda")' $f.jsonl | wc -l)
	got=$(chq "$CH_URL" "SELECT count() FROM ingero.events WHERE session_id IN
		(SELECT session_id FROM ingero.sessions WHERE source = '$([[ $f == one ]] && echo one.ilog || echo -)')")
	[[ $got == "$want" ]] || fail "$f: $got events in ClickHouse, $want in the log"
	((want >= 40 * 8)) || fail "$f: only $want events recorded"
done
echo "both recordings are in whole"

# the processes differ: pids, and (with ASLR) the addresses of the stacks
p1=$(jq -r 'select(.type == "stack") | .pid' one.jsonl | sort -u)
p2=$(jq -r 'select(.type == "stack") | .pid' two.jsonl | sort -u)
[[ -n $p1 && -n $p2 && $p1 != "$p2" ]] || fail "stack pids: '$p1' and '$p2'"
jq -r 'select(.type == "stack") | .id' one.jsonl | sort -u >ids1
jq -r 'select(.type == "stack") | .id' two.jsonl | sort -u >ids2
[[ -z $(comm -12 ids1 ids2) ]] || fail "recorder stack ids shared between the processes"
if [[ $(cat /proc/sys/kernel/randomize_va_space) != 0 ]]; then
	jq -r 'select(.type == "stack") | .ips[]' one.jsonl | sort -u >ips1
	jq -r 'select(.type == "stack") | .ips[]' two.jsonl | sort -u >ips2
	(($(comm -12 ips1 ips2 | wc -l) < $(wc -l <ips1))) ||
		fail "ASLR is on, yet the two processes' stacks have the same addresses"
fi

# the same fleet ids in both sessions, per op
ids() {
	chq "$CH_URL" "SELECT op, arrayStringConcat(arrayMap(x -> toString(x),
		arraySort(groupUniqArray(stack_id))), ',') FROM ingero.events
		WHERE stack_id != 0 AND session_id IN (SELECT session_id FROM ingero.sessions
		WHERE source = '$1') GROUP BY op ORDER BY op"
}
ids one.ilog >fleet1
ids - >fleet2
[[ -s fleet1 ]] || fail "no events with stacks"
same "fleet stack ids per op" fleet2 fleet1
echo "the two processes' stacks share their fleet ids: $(cut -f2 fleet1 | tr ',' '\n' | sort -u | wc -l) ids over $(wc -l <fleet1) ops"

# every stack row is the documented rule applied to the logs
python3 "$HERE/logcalc.py" stacks one.jsonl two.jsonl |
	jq -r '[.fid, (.keys | join(",")), (.offsets | map(tostring) | join(","))] | @tsv' |
	sort -u >want.tsv
chq "$CH_URL" "SELECT stack_id, arrayStringConcat(frame_key, ','),
	arrayStringConcat(arrayMap(x -> toString(x), frame_offset), ',') FROM ingero.stacks FINAL" |
	sort >got.tsv
same "stacks" got.tsv want.tsv
unresolved=$(chq "$CH_URL" "SELECT sum(unresolved) FROM ingero.stacks FINAL")
[[ $unresolved == 0 ]] || fail "$unresolved frames outside every mapping"
echo "every stack id follows the rule; no frame is outside a mapping"
