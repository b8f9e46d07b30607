# SPDX-License-Identifier: MIT
# Sourced by the cases that check the HTML report in a real browser
# (tests/cli/ingero-correlate/html_*.sh, tests/cli/ingero-demo/real_html.sh).
# Not a case itself.
#
#   need_chromium             exit 77 (skip, with the reason) outside CI when
#                             Debian's chromium is not installed; in CI fail
#   check_html PAGE LOG SHOT  open PAGE (the report of LOG) in headless
#                             chromium (tests/tools/browse.py) and check the
#                             DOM after the scripts ran against
#                             ingero-correlate --json LOG: per node a timeline
#                             SVG with the expected op series (the 6 ops with
#                             the most time, then each op a chain names, "unknown": none), one
#                             shaded interval per chain of that node, the
#                             chain cards in rank order with their patterns
#                             and culprits; no console error, no request
#                             beyond the page itself; the hover tooltip, a
#                             chain link and column sorting work; SHOT, the
#                             screenshot at 1400 px, is a PNG that is not
#                             blank.  Prints what failed on stderr, returns 1.

need_chromium() {
	command -v chromium >/dev/null && return 0
	case ${CI:-} in
	true | 1 | yes) echo "chromium is not installed (tests/deps.txt lists it)" >&2; exit 1 ;;
	esac
	echo "chromium is not installed (apt-get install chromium)" >&2
	exit 77
}

check_html() {
	local page=$1 log=$2 shot=$3
	ingero-correlate --json "$log" >corr.jsonl || { echo "ingero-correlate --json failed" >&2; return 1; }
	python3 "$INGERO_TESTS/tools/browse.py" "$page" "$shot" >facts.json ||
		{ echo "the browser could not be driven" >&2; return 1; }
	jq -rn --slurpfile c corr.jsonl --slurpfile f facts.json '
		$f[0] as $f | $f.dom as $d
		| [$c[] | select(.type == "chain")] as $ch
		| [$c[] | select(.type == "summary") | .node] as $nodes
		| def check(ok; what): if ok then "ok \(what)" else "FAIL \(what)" end;
		check($d.timelines | length == ($nodes | length); "a timeline per node (\($nodes | length))"),
		(range(0; $nodes | length) as $i | $nodes[$i] as $n
		 | ([$c[] | select(.type == "stat" and .node == $n) | .op][:6]) as $top
		 | (reduce ($ch[] | select(.node == $n and .op != "" and .op != "unknown") | .op) as $o ($top;
			if index([$o]) then . else . + [$o] end)) as $want
		 | [$ch | to_entries[] | select(.value.node == $n and .value.ts_start > 0) | .key + 1] as $iv
		 | $d.timelines[$i] as $t
		 | check($t.series == $want; "node \($n): op series \($t.series) == \($want)"),
		   check($t.drawn == ($want | length); "node \($n): every series drawn (\($t.drawn))"),
		   check($t.intervals == $iv; "node \($n): shaded intervals \($t.intervals) == chains \($iv)"),
		   check(all($t.interval_px[]; . >= 1); "node \($n): intervals visible")),
		check([$d.cards[].rank] == [range(1; ($ch | length) + 1)]; "chain cards in rank order"),
		check([$d.cards[].pattern] == [$ch[].pattern]; "card patterns \([$d.cards[].pattern])"),
		check([$d.cards[].culprit] == [$ch[].culprit_comm]; "culprits \([$d.cards[].culprit])"),
		check(($ch | length) == 0 or ($d.verdict | contains($ch[0].pattern)); "verdict names chain 1"),
		check($f.errors == []; "no console error: \($f.errors)"),
		check($f.left_page == [] and ($f.requests | length) == 1; "no request left the page: \($f.requests)"),
		check(($f.hover.shown // false) and (($f.hover.text // "") | contains($d.timelines[0].series[0]));
			"hover tooltip"),
		check(($ch | length) == 0 or ($f.click.highlighted? == "iv-1"); "chain link highlights its interval"),
		(($f.sort.values // null) as $v
		 | check($v != null and $v == ($v | if $f.sort.order == "ascending" then sort else sort | reverse end);
			"table sorts (\($f.sort.order))")),
		check($d.op_rows | length > 0; "statistics table")
	' >html.out || { echo "jq failed" >&2; return 1; }
	# the screenshot: a PNG 1400 px wide, not blank -- a blank page of the
	# same size compresses to under 0.005 bytes a pixel, the report to 0.05+
	python3 - "$shot" >>html.out <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read()
ok = b[:8] == b"\x89PNG\r\n\x1a\n" and b[12:16] == b"IHDR"
w, h = struct.unpack(">II", b[16:24]) if ok else (0, 0)
bpp = len(b) / (w * h) if w * h else 0
print("%s screenshot %dx%d, %d bytes, %.3f bytes/pixel" %
      ("ok" if ok and w == 1400 and h >= 600 and bpp > 0.02 else "FAIL", w, h, len(b), bpp))
EOF
	if grep -q '^FAIL' html.out; then
		grep -v '^ok' html.out >&2
		return 1
	fi
	return 0
}
