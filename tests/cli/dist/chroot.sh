# SPDX-License-Identifier: MIT
# The bundle's static recorder needs nothing but the kernel: in a root
# holding only the unpacked bundle (and /proc, /sys, /dev; no /run, no
# tracefs, no libraries) --check passes and reads the workload's library
# through /proc/PID/root, and a recording of the fake workload running
# outside that root counts every call once, with the libraries' mappings
# and build-ids.  From Linux 6.6 it attaches with uprobe_multi links.
. "$INGERO_TESTS/cli/dist/common.bash"
need_bpf

mkdir d
root_up "$(make_dist "$DIST_TEST/b1" "$PWD/d")"
[[ ! -e $ROOT/run ]] || fail "the bundle has a /run"

"$W" --seconds 30 --gap-ns 1000000 --ready-file cready --report /dev/null &
cpid=$!
wait_for cready
rc=0
chroot "$ROOT" /bin/ingero-record --check >check.out 2>check.err || rc=$?
kill "$cpid"
wait "$cpid" 2>/dev/null || true
cat check.out check.err >&2
assert_eq "--check status" "$rc" 0
for item in kernel btf uprobes bpf; do
	grep -Eq "^ok +$item " check.out || fail "item $item not ok"
done
grep -Eq '^warn tracefs +not mounted' check.out || fail "tracefs is reachable in the root"
grep -Eq "^ok +cuda library +$FAKE/libcudart.so.13 \(pids [0-9,]*$cpid[0-9,]*\): ([0-9]+)/\1 functions$" check.out ||
	fail "the workload's library is not read through /proc/PID/root"

record_in_root
[[ -f $ROOT/run/ingero-record.lock ]] || fail "no lock in the root's /run"
check_recording
# uprobe_multi (Linux 6.6): an entry link per library and one for ld.so's
# hook, and a return link per library; from 6.13 one uprobe session link
# per library serves entry and return, so no return links
IFS=. read -r maj min _ <<<"$(uname -r)"
if ((maj > 6 || (maj == 6 && min >= 13))); then
	jq -e '.uprobe_multi == 4 and (.uretprobe_multi // 0) == 0 and (.perf // 0) + (.perf_fd // 0) == 0' links.json >/dev/null ||
		fail "links: $(cat links.json), want uprobe_multi: 4 (3 libraries as sessions, ld.so), no uretprobe_multi"
elif ((maj == 6 && min >= 6)); then
	jq -e '.uprobe_multi == 4 and .uretprobe_multi == 3 and (.perf // 0) + (.perf_fd // 0) == 0' links.json >/dev/null ||
		fail "links: $(cat links.json), want uprobe_multi: 4 (3 libraries, ld.so), uretprobe_multi: 3"
fi
echo ok
