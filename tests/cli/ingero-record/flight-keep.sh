# SPDX-License-Identifier: MIT
# --flight with --keep: a flight recorder that triggers again and again
# keeps only the newest N dumps of its -o on disk.  Four SIGUSR1 dumps with
# --keep 2 leave exactly dumps 3 and 4 (an earlier run's dump, the
# oldest, went at the second one; files of other names stay), each a complete log that reads
# whole; each dump's line says how many older ones went.  --keep 0 and
# --keep-size 0 with --flight: exit 2 before anything is attached.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

for bad in "--keep 0" "--keep-size 0"; do
	rc=0; ingero-record --flight 1s $bad -o x.ilog -d 1s 2>err || rc=$?
	[[ $rc == 2 ]] || fail "--flight with $bad: exit $rc"
	grep -q "recording to" err && fail "--flight with $bad: the recorder started"
done

# an earlier run's dump (the oldest: it goes first) and files that are no
# dumps of rec.ilog
touch rec.flight-005-20200101T000000Z.ilog other.flight-001-20200101T000000Z.ilog \
	rec.20200101T000000Z.ilog
"$W" --mix cudaLaunchKernel --seconds 60 --gap-ns 1000000 --ready-file ready --report w.json &
wpid=$!
trap 'kill $wpid 2>/dev/null || true' EXIT
wait_for ready
start_rec --pid "$wpid" --flight 1s --keep 2
# dump N: its line, once its file is whole (renamed into place)
wait_dump() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "flight dump $1 written to" rec.err && return 0
		sleep 0.05
	done
	fail "no dump $1 after 15 s: $(ls) $(cat rec.err)"
}
for n in 1 2 3 4; do
	kill -USR1 "$RECPID"
	wait_dump $n
done
stop_rec
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
dumps=$(ls rec.flight-* | tr '\n' ' ')
[[ $dumps == "rec.flight-003-"*"Z.ilog rec.flight-004-"*"Z.ilog " ]] ||
	fail "--keep 2 after 4 dumps: want dumps 3 and 4, have $dumps"
[[ -e other.flight-001-20200101T000000Z.ilog && -e rec.20200101T000000Z.ilog ]] ||
	fail "a file that is no dump of rec.ilog was deleted: $(ls)"
# dump 1 deleted none (2 on disk with the earlier run's), 2 that one, 3
# dump 1, 4 dump 2
for n in 2 3 4; do
	grep -q "flight dump $n written to .*; 1 older dump deleted (--keep)" rec.err ||
		fail "dump $n: no line for the deleted dump: $(grep "dump $n" rec.err)"
done
grep "flight dump 1 written to" rec.err | grep -q deleted && fail "dump 1 deleted one of 2"
for n in 3 4; do
	f=$(ls rec.flight-00$n-*Z.ilog)
	ingero-export "$f" >d$n.jsonl 2>d$n.err || fail "dump $n unreadable: $(cat d$n.err)"
	assert_eq "dump $n: its trigger" \
		"$(jq -s -c '[.[] | select(.type=="trigger") | [.reason, .seq]]' d$n.jsonl)" \
		"[[\"signal\",$n]]"
	(($(jq -s "[.[] | select(.type==\"cuda\" and .pid==$wpid)] | length" d$n.jsonl) > 0)) ||
		fail "dump $n: no calls"
done
