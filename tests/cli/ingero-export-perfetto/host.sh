# SPDX-License-Identifier: MIT
# The whole host on Perfetto's counter tracks (format 1.2): each window's
# page allocations of a named process are a counter "pages/s COMM (pid P)"
# (pages over the window's length), those of all other processes
# "pages/s other processes", and a snapshot's pressure stall information
# "psi ... %" - the same tracks and values from both exports, loaded by
# Perfetto's own trace processor.  Format 1.3: a target's I/O wait is
# "iowait % COMM (pid P)" (its blocked time over the window), each blkio
# record's throughput "disk MB/s DISK COMM (pid P)" (or "... other
# processes"), and per device and window the sum of its records: "disk
# MB/s DISK", "disk IOPS DISK", "disk p50 ms DISK", "disk p99 ms DISK" (the
# quantiles of the summed histograms).  The network: a flow's
# "retransmits/s COMM (pid P) SADDR:SPORT > DADDR:DPORT" (the rest "...
# other flows") and a process's "net tx MB/s COMM (pid P)" and "net rx
# MB/s ..." (the rest "... other processes").
set -euo pipefail
. "$INGERO_TESTS/cli/ingero-export-perfetto/tp.bash"
vec=$INGERO_TESTS/vectors
q() { "$tp" -q /dev/stdin "$1" <<<"$2" 2>/dev/null | tail -n +2 | tr -d '"'; }
for log in host kinds net; do
	ingero-export -f perfetto -o $log.json "$vec/$log.ilog"
	ingero-export -f perfetto-proto -o $log.pftrace "$vec/$log.ilog"
done
for t in host.json host.pftrace kinds.json kinds.pftrace net.json net.pftrace; do
	echo "== $t"
	q $t "select t.name, c.value from counter_track t join counter c on c.track_id = t.id
		where t.name like 'pages/s%' or t.name like 'psi%' or t.name like 'iowait%'
		or t.name like 'disk%' or t.name like 'retransmits/s%' or t.name like 'net %'
		order by 1;"
done
