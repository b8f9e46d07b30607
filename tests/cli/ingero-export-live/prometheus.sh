# SPDX-License-Identifier: MIT
# A real recording streamed into --listen (`ingero-record -o - | tee |
# ingero-export --format prometheus --listen`), scraped every second by a
# real Prometheus server (Debian prometheus): its HTTP API shows the call
# counter rising while the fake workload runs; a scrape passes `promtool
# check metrics`; after the workload ends and the recorder stops, the
# final counter equals the calls in the log (and in the workload's own
# report), and SIGTERM ends the lingering exporter cleanly.
. "$INGERO_TESTS/cli/ingero-export-live/common.bash"
# need_bpf, start_rec/stop_rec, wait_for, $W from the recorder's tests
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
command -v prometheus >/dev/null || skip "prometheus not found (Debian prometheus)"
command -v promtool >/dev/null || skip "promtool not found (Debian prometheus)"

xport=$(free_port)
pport=$(free_port)
while [[ $pport == "$xport" ]]; do pport=$(free_port); done
cat >prom.yml <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: ingero
    static_configs:
      - targets: ['127.0.0.1:$xport']
YML
promtool check config prom.yml >/dev/null || fail "prom.yml"
prometheus --config.file=prom.yml --storage.tsdb.path=tsdb --web.listen-address=127.0.0.1:$pport \
	--log.level=warn >prom.log 2>&1 &
ppid_=$!
trap 'kill $ppid_ 2>/dev/null || true' EXIT
wait_http "http://127.0.0.1:$pport/-/ready" 600 || fail "prometheus did not start: $(tail -5 prom.log)"

# about 10 s of calls, each 50 us apart
"$W" --mix cudaLaunchKernel=3,cudaMemcpy,cudaStreamSynchronize --seconds 10 --gap-ns 50000 \
	--ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
mkfifo rec.pipe exp.pipe
ingero-export -f prometheus --listen 127.0.0.1:$xport --linger 120s --window 5s \
	--chain-window 5s <exp.pipe 2>exp.err &
xpid=$!
tee rec.ilog <rec.pipe >exp.pipe &
tpid=$!
start_rec -o - --pid "$wpid" >rec.pipe
wait_http "http://127.0.0.1:$xport/metrics" || fail "no /metrics: $(cat exp.err)"
touch go

q() { # the call counter as Prometheus has it now ("" before the first sample)
	curl -sf "http://127.0.0.1:$pport/api/v1/query" --data-urlencode 'query=sum(ingero_cuda_calls_total)' |
		jq -r '.data.result[0].value[1] // ""'
}
# while the workload runs: the counter as Prometheus scraped it, each second
: >seen.txt
while kill -0 "$wpid" 2>/dev/null; do
	q >>seen.txt
	sleep 1
done
wait "$wpid" || fail "workload failed"
curl -sf "http://127.0.0.1:$xport/metrics" >scrape.prom
promtool check metrics <scrape.prom || fail "promtool check metrics"
echo "promtool check metrics: ok"
stop_rec
wait "$tpid"

# the final counter: the calls in the log, once Prometheus scraped them
want=$(ingero-export -t cuda rec.ilog | wc -l)
[[ $want == "$(jq .total report.json)" ]] || fail "log has $want calls, the workload made $(jq .total report.json)"
got=
for ((i = 0; i < 100; i++)); do
	got=$(q)
	[[ $got == "$want" ]] && break
	sleep 0.2
done
[[ $got == "$want" ]] || fail "Prometheus has $got calls, the log $want"
echo "final ingero_cuda_calls_total = the calls in the log"

# rising while the workload ran: several distinct samples, never falling,
# all below the final count
grep -v '^$' seen.txt >rising.txt || true
awk -v fin="$want" 'NR > 1 && $1 < prev { bad = 1 } { prev = $1; if ($1 >= fin) top++; d[$1] = 1 }
	END { n = 0; for (k in d) n++; if (bad || n < 3) exit 1 }' rising.txt ||
	fail "counter did not rise while the workload ran: $(tr '\n' ' ' <rising.txt)"
echo "the counter rose while the workload ran"

# the live families are there and agree with the log
grep -q '^ingero_cuda_call_window_duration_seconds{.*quantile="0.99"}' scrape.prom || fail "no quantiles"
grep -q '^ingero_host_cpu_busy_ratio{' scrape.prom || fail "no host gauges"
grep -q '^ingero_chain_windows_total [1-9]' scrape.prom || fail "no chain window analyzed"
grep -q '^ingero_events_lost_total{.*source="probe:cudaLaunchKernel"}' scrape.prom || fail "no loss counters"

# the stream ended: the exporter lingers until SIGTERM, then exits 0
kill -0 "$xpid" 2>/dev/null || fail "exporter gone before SIGTERM: $(cat exp.err)"
stop_pid "$xpid"
[[ $STOP_RC == 0 ]] || fail "exporter exited $STOP_RC after SIGTERM: $(cat exp.err)"
echo "SIGTERM while lingering: exit 0"
