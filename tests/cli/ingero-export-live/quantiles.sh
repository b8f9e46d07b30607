# SPDX-License-Identifier: MIT
# The live model against the log: a log replayed through --listen (stdin
# held open, so the exporter is still serving) gives, once every record is
# in, counters equal to the file export's, window quantiles within the
# documented 3.2% of the nearest-rank quantiles of the log's calls when the
# window covers the whole log (and window calls = all calls), fewer calls
# in a window shorter than the log, and a chain counter per kind and
# severity that matches ingero-correlate's chains for a log analyzed as one
# chain window.
. "$INGERO_TESTS/cli/ingero-export-live/common.bash"
"$INGERO_OUT/tests/tools/scensynth" incident -o run.ilog
records=$(ingero-export run.ilog | wc -l)
# live WINDOW LINGER: the log fed into --listen on a pipe left open (fd 3);
# sets XPID and PORT; live.prom once every record is in.
live() {
	PORT=$(free_port)
	mkfifo in.$1
	ingero-export -f prometheus --listen 127.0.0.1:$PORT --window "$1" --chain-window 1h \
		--linger "$2" <in.$1 &
	XPID=$!
	exec 3>in.$1
	cat run.ilog >&3
	wait_http "http://127.0.0.1:$PORT/metrics" || exit 1
	scrape_until "^ingero_export_records_total $records\$" live.prom || true
}
scrape_until() { # REGEX FILE: scrape into FILE until a line matches
	for ((i = 0; i < 200; i++)); do
		curl -sf "http://127.0.0.1:$PORT/metrics" >"$2"
		grep -q "$1" "$2" && return 0
		sleep 0.1
	done
	return 1
}
live 1h 60s
trap 'kill $XPID 2>/dev/null || true' EXIT
grep -q "^ingero_export_records_total $records\$" live.prom && echo "every record in while the stream is open"
# the file export's families, line for line
ingero-export -f prometheus run.ilog >file.prom
grep -v '^#' file.prom | grep -v '^ingero_log_' >a.txt
grep -Ff <(sed 's/ .*//' a.txt) live.prom | grep -v '^ingero_log_' >b.txt
cmp a.txt b.txt && echo "counters and histograms equal the file export's"
# quantiles: nearest rank over the whole log (the window covers it)
ingero-export -t cuda run.ilog | jq -r '[.op, .dur_ns] | @tsv' | python3 -c '
import math, sys
d = {}
for line in sys.stdin:
    op, ns = line.split()
    d.setdefault(op, []).append(int(ns))
for op, v in d.items():
    v.sort()
    for q in (0.5, 0.9, 0.99):
        print(op, q, v[max(1, math.ceil(q * len(v))) - 1], len(v))' | sort >exact.txt
grep '^ingero_cuda_call_window_duration_seconds{' live.prom |
	sed 's/.*op="\([^"]*\)",quantile="\([^"]*\)"} \(.*\)/\1 \2 \3/' | sort >live.txt
join <(awk '{print $1"/"$2, $3}' exact.txt) <(awk '{print $1"/"$2, $3}' live.txt) |
	awk '{ e = $2; l = $3 * 1e9; err = e ? (l - e) / e : l; if (err < 0) err = -err
	       if (err > 0.032) { bad++; print "off:", $0 } ; n++ }
	     END { printf "%d quantiles within 3.2%% of the log'\''s: %s\n", n, bad ? "NO" : "yes" }' |
	sed 's/^[0-9]* quantiles/quantiles/'
[[ $(wc -l <live.txt) == "$(wc -l <exact.txt)" ]] && echo "a quantile for each op and q"
awk '{ n[$1] = $4 } END { for (op in n) print op, n[op] }' exact.txt | sort >calls.txt
grep '^ingero_cuda_window_calls{' live.prom | sed 's/.*op="\([^"]*\)"} \(.*\)/\1 \2/' | sort >wcalls.txt
cmp calls.txt wcalls.txt && echo "window calls = all calls when the window covers the log"
exec 3>&- # the stream ends: its chain window is analyzed
scrape_until '^ingero_chain_windows_total 1$' end.prom || true
# chains: one chain window over the whole log, as ingero-correlate on it
grep '^ingero_chains_total{' end.prom | sed 's/.*kind="\([^"]*\)",severity="\([^"]*\)"} \(.*\)/\1 \2 \3/' |
	sort >chains.live
ingero-correlate --json run.ilog | jq -r 'select(.pattern) | "\(.pattern) \(.severity)"' | sort | uniq -c |
	awk '{print $2, $3, $1}' | sort >chains.log
[[ -s chains.live ]] && cmp chains.live chains.log && echo "chains by kind and severity = ingero-correlate's"
stop_pid $XPID
echo "SIGTERM: exit $STOP_RC"
# a window shorter than the log holds fewer calls
live 20ms 0s
exec 3>&-
wait $XPID
short=$(grep '^ingero_cuda_window_calls{' live.prom | awk '{s += $2} END {print s}')
all=$(awk '{s += $2} END {print s}' calls.txt)
((short > 0 && short < all)) && echo "a 20 ms window holds fewer calls than the log"
