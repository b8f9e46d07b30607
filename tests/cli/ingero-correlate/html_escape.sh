# SPDX-License-Identifier: MIT
# --html: names from the log are text, never markup: a node named with an
# <img onerror> tag and a file name with quotes appear escaped in the page
set -uo pipefail
"$INGERO_OUT"/tests/tools/synth --events 2000 --node '<img src=x onerror="alert(1)">&' -o 'a"b.ilog'
ingero-correlate --html page.html 'a"b.ilog' || exit 1
grep -c '<img' page.html
grep -c '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;' page.html | awk '{ print ($1 > 0 ? "node name escaped" : "node name missing") }'
grep -o '<h1>[^<]*</h1>' page.html
