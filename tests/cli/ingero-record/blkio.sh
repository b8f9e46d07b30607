# SPDX-License-Identifier: MIT
# Block I/O per device and process (format 1.3, blkio records) and a
# target's time blocked on I/O (host iowait): the recorded command reads a
# loop device with O_DIRECT while a process outside the recording writes to
# a second one.  The command's blkio records on its device add up to exactly
# the requests dd made (ios, bytes, all reads), each histogram to its ios;
# its iowait records show it blocked; the writer is no target yet is named
# on its own device with its process record (system-wide counting).
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
command -v losetup >/dev/null || skip "no losetup"
truncate -s 64M a.img b.img
la=$(losetup -f --show a.img 2>/dev/null) || skip "no loop device can be made here"
wp= lb=
trap '[[ -z $wp ]] || kill "$wp" 2>/dev/null || true; wait || true; losetup -d "$la" $lb || true' EXIT
lb=$(losetup -f --show b.img) || fail "second loop device"
dd if=/dev/zero of="$la" bs=1M count=32 oflag=direct status=none
# one long-lived writer (its process record is read while it runs)
python3 -c '
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 65536)
off = 0
while True:
    os.pwrite(fd, buf, off)
    off = (off + 65536) % (64 << 20)
' "$lb" &
wp=$!
ingero-record -o rec.ilog -- dd if="$la" of=/dev/null bs=64k count=400 iflag=direct status=none \
	2>rec.err || fail "ingero-record failed"
export_log
ma=$(( 0x$(stat -c %t "$la") )) mi=$(( 0x$(stat -c %T "$la") ))
dd=$(jq -r 'select(.type=="process" and .comm=="dd") | .pid' log.jsonl | head -n 1)
[[ -n $dd ]] || fail "no process record of dd"
assert_eq "dd's requests on ${la#/dev/}: ios, bytes, reads, read bytes" \
	"$(jq -s -c --argjson p "$dd" --argjson ma "$ma" --argjson mi "$mi" '[.[] | select(.type=="blkio"
		and .pid==$p and .major==$ma and .minor==$mi)] | [(map(.ios) | add), (map(.bytes) | add),
		(map(.read_ios) | add), (map(.read_bytes) | add), (map(.disk) | unique)]' log.jsonl)" \
	"[400,26214400,400,26214400,[\"${la#/dev/}\"]]"
assert_eq "histograms that do not add up to their ios" \
	"$(jq -s '[.[] | select(.type=="blkio") | select((.hist | add) != .ios)] | length' log.jsonl)" 0
assert_eq "records whose maximum is below the mean or whose histogram's top bucket cannot hold it" \
	"$(jq -s '[.[] | select(.type=="blkio" and .ios > 0) | select(.lat_max_ns * .ios < .lat_sum_ns
		or .lat_max_ns < pow(2; (.hist | length) + 9))] | length' log.jsonl)" 0
assert_eq "dd blocked on I/O (iowait records with time and waits)" \
	"$(jq -s --argjson p "$dd" '[.[] | select(.type=="host" and .host_type=="iowait" and .pid==$p)]
		| (map(.value) | add) > 0 and (map(.other_pid) | add) > 0' log.jsonl)" true
w=$(jq -s -r --argjson ma "$(( 0x$(stat -c %t "$lb") ))" --argjson mi "$(( 0x$(stat -c %T "$lb") ))" \
	'[.[] | select(.type=="blkio" and .major==$ma and .minor==$mi and .pid > 0 and .comm=="python3")
		| .pid] | first // empty' log.jsonl)
[[ -n $w && $w != "$dd" ]] || fail "the writer outside the recording is not named on ${lb#/dev/}"
jq -s -e --argjson p "$w" 'any(.[]; .type=="process" and .pid==$p)' log.jsonl >/dev/null ||
	fail "no process record of the writer $w"
assert_eq "iowait of a process that is no target" \
	"$(jq -s --argjson p "$w" '[.[] | select(.type=="host" and .host_type=="iowait" and .pid==$p)] | length' log.jsonl)" 0
exit 0
