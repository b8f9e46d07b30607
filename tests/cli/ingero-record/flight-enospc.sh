# SPDX-License-Identifier: MIT
# A full disk under --flight --keep (a small tmpfs, filled up by another
# file after two dumps): the third dump does not fit, so the oldest dumps
# go and it is written again from memory; its line says so, it reads
# whole, no temporary file is left, and the recorder goes on.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
mkdir disk
mount -t tmpfs -o size=16m ingero-flight-enospc disk 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'kill $wpid 2>/dev/null || true; umount -l "$PWD/disk" 2>/dev/null' EXIT
export FAKECUDA_MODE=sleep FAKECUDA_LAT_NS=1000000
"$W" --mix cudaLaunchKernel,cudaStreamSynchronize --seconds 60 --ready-file ready --report w.json &
wpid=$!
wait_for ready
rm -f rec.err
ingero-record -o disk/rec.ilog --pid "$wpid" --flight 1s --keep 10 2>rec.err &
RECPID=$!
wait_rec
# dump N: its line (the file whole, renamed into place)
wait_dump() {
	local i
	for ((i = 0; i < 300; i++)); do
		grep -q "flight dump $1 written to" rec.err && return 0
		grep -q -e "--flight: .*disk/rec.flight-00$1" rec.err && fail "dump $1 failed: $(cat rec.err)"
		sleep 0.05
	done
	fail "no dump $1 after 15 s: $(ls disk) $(cat rec.err)"
}
sleep 1.5
kill -USR1 "$RECPID"
wait_dump 1
kill -USR1 "$RECPID"
wait_dump 2
# the disk full but for 4 KiB: the next dump does not fit
avail=$(df -B1 --output=avail disk | tail -n 1)
((avail > 8192)) || fail "the tmpfs is full already: $(ls -l disk)"
head -c $((avail - 4096)) /dev/zero >disk/filler 2>/dev/null || true
kill -USR1 "$RECPID"
wait_dump 3
kill -0 "$RECPID" 2>/dev/null || fail "the recorder stopped after the disk filled: $(cat rec.err)"
stop_rec
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
grep -q "flight dump 3 written to disk/rec.flight-003-.*; [12] older dumps\? deleted (a full disk)" rec.err ||
	fail "no line said the oldest dumps went for room: $(grep 'dump 3' rec.err)"
! ls disk/rec.flight-001-*Z.ilog >/dev/null 2>&1 ||
	fail "the oldest dump was kept on a full disk: $(ls disk)"
[[ -z $(ls disk/*.tmp 2>/dev/null) ]] || fail "a temporary file was left: $(ls disk)"
f=$(ls disk/rec.flight-003-*Z.ilog)
ingero-export "$f" >d.jsonl 2>d.err || fail "dump 3 does not read whole: $(cat d.err)"
assert_eq "dump 3: its trigger" "$(jq -s -c '[.[] | select(.type=="trigger") | [.reason, .seq]]' d.jsonl)" \
	'[["signal",3]]'
(($(jq -s "[.[] | select(.type==\"cuda\" and .pid==$wpid)] | length" d.jsonl) > 0)) || fail "dump 3: no calls"
umount -l disk
trap - EXIT
