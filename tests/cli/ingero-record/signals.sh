# SPDX-License-Identifier: MIT
# Crash safety and operability: SIGTERM flushes a complete log (final loss
# and clock records after the last event); SIGKILL leaves a log whose
# complete frames read back; the lock refuses a second recorder while one
# runs and is taken over after its holder was killed.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

"$W" --seconds 60 --gap-ns 200000 --ready-file ready --report report.json &
wpid=$!
wait_for ready
# a second recorder while the first holds the lock: refused, exit 2
start_rec --pid "$wpid"
rc=0
timeout 30 ingero-record -q -o second.ilog --pid "$wpid" 2>second.err || rc=$?
assert_eq "second recorder exit" "$rc" 2
grep -q "another ingero-record (pid $RECPID) holds" second.err || fail "message: $(cat second.err)"
sleep 2.5
stop_rec TERM
export_log
assert_eq "last record" "$(tail -n 1 log.jsonl | jq -r .type)" clock
jq -e -s '[.[] | .type] | index("loss") and index("header") == 0 and index("snapshot")' log.jsonl \
	>/dev/null || fail "header, loss and snapshot records expected"
n=$(jq -s "[.[] | select(.type==\"cuda\" and .pid==$wpid)] | length" log.jsonl)
((n > 0)) || fail "nothing recorded"
last_cuda=$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)
lost=$(jq -s '[.[] | select(.type=="loss" and (.source|startswith("probe:")))] | group_by(.source)
	| map(last) | map(.seen - .lost) | add' log.jsonl)
assert_eq "seen - lost = recorded" "$lost" "$last_cuda"

# SIGKILL mid-run: the frames written so far (one a second) read back
start_rec --pid "$wpid"
sleep 2.5
kill -KILL "$RECPID"
wait "$RECPID" 2>/dev/null || true
mv rec.ilog killed.ilog
rc=0
timeout 120 ingero-export killed.ilog >killed.jsonl 2>killed.err || rc=$?
[[ $rc == 0 || $rc == 2 ]] || fail "ingero-export on the killed log exited $rc"
assert_eq "first record" "$(head -n 1 killed.jsonl | jq -r .type)" header
n=$(jq -s "[.[] | select(.type==\"cuda\" and .pid==$wpid)] | length" killed.jsonl)
((n > 0)) || fail "no cuda event survived the kill"
# the killed recorder's lock is stale: a new one starts
start_rec --pid "$wpid"
stop_rec
kill "$wpid"
