# recorded for real, the clean counterpart of net-retrans: the same
# all-reduce over TCP on loopback with the same peer rank, and no loss:
# no HIGH or MEDIUM chain, no net-retransmits chain, though the socket
# volume of the job and of its peer is in the log.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q net-steady -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_chain_above run.ilog MEDIUM || exit 1
no_pattern run.ilog net-retransmits || exit 1
n=$(ingero-export run.ilog | jq -s '[.[] | select(.type=="sockio" and (.comm=="train" or .comm=="rank1") and .tx_bytes + .rx_bytes > 0)] | length')
[ "$n" -ge 8 ] || { echo "only $n sockio records of the job and its peer" >&2; exit 1; }
