# SPDX-License-Identifier: MIT
# Shared by the dist cases (sourced; not a case itself).  They build the
# bundle with `make dist` from the repository ($INGERO_TESTS/..) into
# $INGERO_OUT/dist-test/ (never into the source tree), and run its static
# recorder in a root that holds nothing else.  The recorder helpers (start,
# stop, counts) are the ingero-record cases'.
. "$INGERO_TESTS/cli/ingero-record/common.bash"

REPO=$(dirname "$INGERO_TESTS")
DIST_TEST=$INGERO_OUT/dist-test

# make_dist BUILDDIR TARDIR: `make dist` with the programs built in
# BUILDDIR (incrementally, if an earlier case built there) and the archive
# written to TARDIR; prints the archive's path.  Not the caller's make:
# its jobserver and variables (SANFLAGS under make asan) stay out.
make_dist() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$REPO" -j"$(nproc)" dist \
		DIST_OUT="$1" DIST="$2" >"$2.log" 2>&1 || { cat "$2.log" >&2; fail "make dist failed"; }
	local t=("$2"/ingero-*-linux-x86_64.tar.gz)
	[[ -f ${t[0]} ]] || fail "make dist wrote no archive in $2"
	echo "${t[0]}"
}

# A root holding only the unpacked bundle and bind mounts of /proc, /sys
# and /dev (read-only: nothing in them can be removed through it), taken
# down on any exit so that removing the case's folder never reaches them.
ROOT=$PWD/root
root_down() {
	[[ -n ${RECPID:-} ]] && kill -KILL "$RECPID" 2>/dev/null
	local m
	for m in dev sys proc; do
		mountpoint -q "$ROOT/$m" 2>/dev/null && umount -l "$ROOT/$m"
	done
	return 0
}
root_up() {
	trap root_down EXIT
	trap 'exit 1' INT TERM
	mkdir -p "$ROOT"
	tar -xzf "$1" -C "$ROOT" --strip-components=1 || fail "cannot unpack $1"
	local m
	for m in proc sys dev; do
		mkdir "$ROOT/$m"
		mount --bind "/$m" "$ROOT/$m" || fail "cannot bind-mount /$m"
		mount -o remount,bind,ro "$ROOT/$m" || fail "cannot make $ROOT/$m read-only"
	done
}

# start_root_rec ARGS...: the bundle's recorder, in the root, logging to
# /rec.ilog there; returns once its probes are attached.  Its lock is the
# default one (/run of the root, which does not exist yet).
start_root_rec() {
	rm -f rec.err
	env -u INGERO_RECORD_LOCK chroot "$ROOT" /bin/ingero-record -o /rec.ilog "$@" 2>rec.err &
	RECPID=$!
	wait_rec
}

# link_types: what the recorder attached, from its descriptors: each BPF
# link's type (fdinfo link_type: uprobe_multi, uretprobe_multi, perf, ...)
# and each perf event ("perf_fd"), as a JSON object of counts
link_types() {
	local f l
	for f in /proc/"$RECPID"/fd/*; do
		l=$(readlink "$f" 2>/dev/null) || continue
		case $l in
		*bpf_link*) sed -n 's/^link_type:[[:space:]]*//p' "/proc/$RECPID/fdinfo/${f##*/}" ;;
		*perf_event*) echo perf_fd ;;
		esac
	done | jq -R -s -c 'split("\n") | map(select(length > 0)) | group_by(.)
		| map({key: .[0], value: length}) | from_entries'
}

# record_in_root: the workload runs here (outside the root, its libraries
# in $FAKE); the root's recorder traces it by pid from its first call to
# its exit; then log.jsonl and links.json (what the recorder attached).
record_in_root() {
	local mix=cudaMalloc=2,cudaMemcpy=3,cudaLaunchKernel=5,cudaLaunchKernel_ptsz=2
	mix+=,cudaStreamSynchronize,cudaGraphLaunch,cudaFree=2,cuMemAlloc_v2,cuLaunchKernel=2,cuMemFree
	mix+=,ncclAllReduce,ncclSend
	"$W" --mix "$mix" --iters 50 --threads 2 --ready-file ready --wait-file go \
		--report report.json &
	wpid=$!
	wait_for ready
	start_root_rec --pid "$wpid"
	link_types >links.json
	touch go
	wait "$wpid" || fail "workload failed"
	stop_rec
	RECPID=
	mv "$ROOT/rec.ilog" rec.ilog
	export_log
}

# check_recording: every call counted once, per op, as the workload says;
# no loss; the mappings of the workload's libraries, read from outside
# the root through /proc/PID/root, with their build-ids.
check_recording() {
	assert_eq "per-op counts" "$(cuda_counts "$wpid")" "$(jq -S -c .calls report.json)"
	assert_eq "nothing else recorded" "$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)" \
		"$(jq .total report.json)"
	assert_eq "losses" "$(jq -s '[.[] | select(.type=="loss") | .lost] | add' log.jsonl)" 0
	local lib want got
	for lib in libcudart.so.13 libcuda.so.1 libnccl.so.2; do
		want=$(readelf -nW "$FAKE/$lib" | sed -n 's/.*Build ID: //p')
		got=$(jq -r -s --arg p "$FAKE/$lib" \
			"[.[] | select(.type==\"mapping\" and .pid==$wpid and .path==\$p) | .build_id] | unique | join(\",\")" \
			log.jsonl)
		assert_eq "$lib mapping build-id" "$got" "$want"
	done
}
