# SPDX-License-Identifier: MIT
# recorded for real: ingero demo incident --html records its workload on the
# fake CUDA libraries under ingero-record (uprobes + tracepoints) and writes
# the report as a web page; opened in headless chromium, the DOM after its
# scripts ran has a timeline SVG with the op series and one shaded interval
# per chain that ingero-correlate --json finds in the same log, the chain
# cards in rank order with the culprit's name, no console error and no
# request beyond the page (tests/cli/html.bash).  The screenshot at 1400 px
# is checked not blank; with INGERO_HTML_SHOT=FILE it is also copied there
# (docs/report.png, which the README shows, comes from this case).
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/cli/html.bash"
need_chromium
ingero demo --bpf -q incident -o run.ilog --html page.html >out.txt || { cat out.txt >&2; exit 1; }
check_html page.html run.ilog shot.png || exit 1
# the recorded log's page, twice: the same bytes
ingero-correlate --html a.html run.ilog && ingero-correlate --html b.html run.ilog || exit 1
cmp a.html b.html || { echo "two pages of one recorded log differ" >&2; exit 1; }
# a recorded log has stacks: an icicle per drawn op
[ "$(jq '.dom.icicles | length' facts.json)" -ge 1 ] || { echo "no call-path icicle" >&2; exit 1; }
if [ -n "${INGERO_HTML_SHOT:-}" ]; then
	cp shot.png "$INGERO_HTML_SHOT"
fi
