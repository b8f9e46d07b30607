# recorded for real, the clean counterpart of disk-stall: the same data
# loader reads the same kind of loop device, beside the same process outside
# the job that only reads 64 KiB every 20 ms: the loader keeps ahead, the
# training loop runs steadily - no HIGH or MEDIUM chain, no disk-stall chain,
# though the block I/O and the loader's I/O wait are in the log.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
if [ ! -e /dev/loop-control ] && [ "${CI:-}" != true ]; then
	echo "no loop devices here (CONFIG_BLK_DEV_LOOP)" >&2; exit 77
fi
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q disk-steady -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
no_pattern run.ilog disk-stall || exit 1
n=$(ingero-export run.ilog | jq -s '[.[] | select(.type=="blkio" and (.comm=="loader" or .comm=="indexer") and (.disk | startswith("loop")))] | length')
[ "$n" -ge 8 ] || { echo "only $n blkio records of the loader and the reader on the loop device" >&2; exit 1; }
! losetup -a 2>/dev/null | grep -q "ingero-demo" || { echo "a loop device is still attached" >&2; exit 1; }
