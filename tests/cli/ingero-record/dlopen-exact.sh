# SPDX-License-Identifier: MIT
# No call missed after a late dlopen, system-wide (--all-users): rounds of
# short-lived processes, several threads each, that dlopen a CUDA runtime
# file never seen before (a fresh copy each round, so a new inode: nothing
# was attached to it ahead of time) and call it at once.  The kernel stops
# each such process as its mmap() returns until the recorder has attached
# (hold.c), so every call is recorded: counts exact in 20 rounds out of 20.
# A second recorder attaches the files the first one saw before any process
# maps them (the persisted list), and holds nothing.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

rounds=${ROUNDS:-20} procs=6
# a recorder slowed by a loaded machine must not see its holds expire: the
# bound is hold-watchdog.sh's subject, exactness this one's
start_rec --all-users -v --hold-max 30s
# mmap() watched by the address space lock's tracepoint where the kernel
# has it (dlopen-exact-tp.sh, -rawtp.sh: the fallbacks)
if [[ -z ${WATCHED:-} ]]; then
	WATCHED="by its system call's tracepoints"
	grep -qa btf_trace_mmap_lock_released /sys/kernel/btf/vmlinux &&
		WATCHED="by the address space lock's tracepoint"
fi
grep -q "mmap() watched $WATCHED" rec.err || fail "mmap() not watched $WATCHED"
for ((r = 1; r <= rounds; r++)); do
	mkdir "r$r" && cp "$FAKE/libcudart.so.13" "r$r/"
	for ((p = 1; p <= procs; p++)); do
		"$W" --lib-dir "$PWD/r$r" --threads 4 --iters 10 --mix cudaMalloc,cudaLaunchKernel=2,cudaFree \
			--report "r$r/p$p.json" &
	done
	wait $(jobs -p | grep -vx "$RECPID") || fail "round $r: a workload failed"
done
stop_rec
export_log

# per process: the log's per-op counts against the workload's own
jq -s -c '[.[] | select(.type=="cuda")] | group_by(.pid)
	| map({key: (.[0].pid | tostring), value: (group_by(.op) | map({key: .[0].op, value: length})
	| from_entries)}) | from_entries' log.jsonl >got.json
missed=0
for ((r = 1; r <= rounds; r++)); do
	for ((p = 1; p <= procs; p++)); do
		f=r$r/p$p.json
		want=$(jq -S -c .calls "$f")
		got=$(jq -S -c --arg pid "$(jq .pid "$f")" '.[$pid] // {}' got.json)
		if [[ $got != "$want" ]]; then
			echo "round $r process $p: got $got, want $want" >&2
			missed=$((missed + 1))
		fi
	done
done
((missed == 0)) || fail "$missed of $((rounds * procs)) processes with calls missing;" \
	"holds: $(last_loss holds)"
# every new file held its processes, none past --hold-max
holds=$(last_loss holds)
# (a hold is lost when the watchdog resumed it or the critical ring was
# full: the ring's own loss record tells the two apart)
[[ $(jq .lost <<<"$holds") == 0 ]] || fail "holds expired: $holds; critical ring:" \
	"$(last_loss ringbuf:critical)"
(($(jq .seen <<<"$holds") >= rounds)) || fail "fewer holds than new files: $holds"
grep -qx "$PWD/r1/libcudart.so.13" cuda-libs || fail "r1's copy is not in the list of files seen"

# a second recorder: the files seen are attached before anything maps them
start_rec --all-users -v
grep -q "attached .* to $PWD/r1/libcudart.so.13 " rec.err || fail "r1's copy not attached at start"
"$W" --lib-dir "$PWD/r1" --threads 4 --iters 10 --report again.json
stop_rec
export_log
a=$(jq .pid again.json)
assert_eq "known file: counts" "$(cuda_counts "$a")" "$(jq -S -c .calls again.json)"
assert_eq "known file: holds" "$(jq -s '[.[] | select(.type=="loss" and .source=="holds")] | length' log.jsonl)" 0
