# SPDX-License-Identifier: MIT
# A full disk under --rotate (a small tmpfs): one line says what happened,
# the oldest files go, recording goes on, and every file reads whole (the
# one being written when the disk filled is cut back to its last whole
# frame).  SIGKILL while rotating: every file but the last reads whole, the
# last up to its last frame.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
mkdir disk
mount -t tmpfs -o size=1m ingero-enospc disk 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount -l "$PWD/disk" 2>/dev/null' EXIT
export FAKECUDA_LAT_NS=2000
mix=cudaLaunchKernel=4,cudaMemcpyAsync,cudaStreamSynchronize
"$W" --mix "$mix" --seconds 120 --threads 2 --ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
rm -f rec.err
ingero-record -o disk/rec.ilog --pid "$wpid" --rotate 1s --keep 50 2>rec.err &
RECPID=$!
wait_rec
first=$(ls disk/rec.*Z*.ilog)
touch go
# however fast this machine lets the workload call: until the disk fills
for ((i = 0; i < 1200; i++)); do
	grep -q "no space left" rec.err && break
	kill -0 "$RECPID" 2>/dev/null || fail "the recorder stopped: $(cat rec.err)"
	sleep 0.05
done
grep -q "no space left" rec.err || fail "the disk did not fill in 60 s: $(du -sh disk)"
sleep 3
kill -0 "$RECPID" 2>/dev/null || fail "the recorder stopped after the disk filled: $(cat rec.err)"
stop_rec
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
grep -q "no space left on the device: the file ends at its last whole frame, [0-9]* records lost; oldest files deleted, recording goes on in disk/rec\." rec.err ||
	fail "no line said what happened: $(cat rec.err)"
full=$(grep -c "no space left" rec.err)
for f in disk/rec.*Z*.ilog; do
	timeout 60 ingero-export "$f" >/dev/null 2>one.err || fail "$f does not read whole: $(cat one.err)"
done
# the oldest (the run's first file) went first, and recording went on: the newest file has calls
# written after the disk last filled
[[ ! -e $first ]] || fail "the oldest file $first was kept on a full disk"
# (newest by time written: a file started in the same second as the one
# before it is NAME-1, which sorts before NAME)
last=$(ls -t disk/rec.*Z*.ilog | head -n 1)
n=$(ingero-export "$last" | jq -s '[.[] | select(.type=="cuda")] | length')
((n > 0)) || fail "no calls in the newest file $last"
echo "disk full $full times; every file whole" >&2
umount -l disk
trap - EXIT

# SIGKILL while rotating: with --rotate 8KiB each frame ends a file, so
# the recorder rotates all the time and the kill falls in or next to one
rm -f rec.*Z*.ilog ready go
"$W" --mix "$mix" --seconds 6 --ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
start_rec --pid "$wpid" --rotate 8KiB --keep 100000
touch go
sleep 3.$((RANDOM % 10))
kill -KILL "$RECPID"
wait "$RECPID" 2>/dev/null || true
wait "$wpid" || fail "workload failed"
mapfile -t files < <(ls -tr rec.*Z*.ilog)
((${#files[@]} >= 2)) || fail "${#files[@]} files after 3 s of --rotate 8KiB"
for ((i = 0; i < ${#files[@]}; i++)); do
	rc=0
	timeout 60 ingero-export "${files[i]}" >one.jsonl 2>one.err || rc=$?
	if ((i < ${#files[@]} - 1)); then
		[[ $rc == 0 ]] || fail "${files[i]}: a completed file does not read whole: $(cat one.err)"
	else
		# the current one: whole, or cut short in its last frame only
		[[ $rc == 0 ]] || { [[ $rc == 2 ]] && grep -q ": truncated" one.err && [[ $(wc -l <one.err) == 1 ]]; } ||
			fail "${files[i]}: the file being written is damaged beyond its last frame: $(cat one.err)"
	fi
done
echo "SIGKILL: ${#files[@]} files, each readable to its last frame" >&2
