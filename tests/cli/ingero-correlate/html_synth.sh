# SPDX-License-Identifier: MIT
# ingero-correlate --html on the incident scenario's log (synthesized, the
# same log ingero demo --no-bpf writes): the page opened in headless
# chromium has the timeline, intervals and chain cards the JSON output
# says (tests/cli/html.bash); the same log gives the same bytes twice; the
# demo's --html writes the same page but for its title note.
set -uo pipefail
. "$INGERO_TESTS/cli/html.bash"
need_chromium
ingero demo --no-bpf -q incident -o run.ilog --html demo.html >demo.txt || { cat demo.txt >&2; exit 1; }
ingero-correlate --html a.html run.ilog || exit 1
ingero-correlate --html b.html run.ilog || exit 1
cmp a.html b.html || { echo "two runs on one log differ" >&2; exit 1; }
check_html a.html run.ilog shot.png || exit 1
# the demo's page: its note and name aside, the same lines
diff <(grep -v -e '^<p class="note">ingero demo' -e '<title>' -e '^<h1>' a.html) \
	<(grep -v -e '^<p class="note">ingero demo' -e '<title>' -e '^<h1>' demo.html) >&2 ||
	{ echo "ingero demo --html differs from ingero-correlate --html" >&2; exit 1; }
grep -q '^<p class="note">ingero demo incident: ' demo.html || { echo "demo note missing" >&2; exit 1; }
