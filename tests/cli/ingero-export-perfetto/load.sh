# SPDX-License-Identifier: MIT
# Both Perfetto exports of a merged 4-rank job load in Perfetto's own trace
# processor with one process per (node, pid), named "python3 (pid P) on
# node (rank R)", with pids unique across nodes (node k's pid P is
# k*10000000+P), plus a process per node for its counters and chains; a
# thread per tid with its preemptions on a track of their own (in the JSON
# a second thread, "preemptions (tid N)", so 2 threads there), CUDA calls
# and preemptions as slices that all nest at depth 0, snapshots as counter
# tracks, chains as instants named by severity, and no error or data-loss
# statistic.
set -euo pipefail
. "$INGERO_TESTS/cli/ingero-export-perfetto/tp.bash"
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 4 --skews 0,+3ms,-7ms,+40ms --steps 200 --chains
ingero-merge -q --align rank*.ilog -o job.ilog
ingero-export -f perfetto -o job.json job.ilog
ingero-export -f perfetto-proto -o job.pftrace job.ilog
q() { "$tp" -q /dev/stdin "$1" <<<"$2" 2>/dev/null | tail -n +2 | tr -d '"'; }
for t in job.json job.pftrace; do
	echo "== $t"
	q $t "select pid, name from process where pid > 0 order by pid;"
	q $t "select p.name, count(distinct t.tid) from thread t join process p using (upid)
		join thread_track tt using (utid) group by 1 order by 1;" | sed 's/^/threads: /'
	q $t "select name, count(*), max(depth) from slice where dur > 0 group by name order by name;" |
		sed 's/^/slices: /'
	q $t "select name, count(*) from slice where dur = 0 group by name order by name;" |
		sed 's/^/instants: /'
	q $t "select t.name, count(*) from counter_track t join counter c on c.track_id = t.id
		group by t.name order by 1;" | sed 's/^/counters: /'
	q $t "select count(*) from stats where value > 0 and severity in ('error', 'data_loss');" |
		sed 's/^/error stats: /'
done
# the same calls as the log has
echo "log: $(ingero-export -t cuda job.ilog | wc -l) calls, $(ingero-export -t host job.ilog | wc -l) preemptions"
