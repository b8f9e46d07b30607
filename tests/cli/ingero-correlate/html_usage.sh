# SPDX-License-Identifier: MIT
# --html names its own file: not with -o, another report mode or --baseline
set -uo pipefail
"$INGERO_OUT"/tests/tools/synth --events 1000 -o run.ilog
ingero-correlate --html a.html -o b.html run.ilog; echo "with -o: $?"
ingero-correlate --html a.html --report run.ilog; echo "with --report: $?"
ingero-correlate --html a.html --baseline run.ilog run.ilog; echo "with --baseline: $?"
ingero-correlate --html /nonexistent/dir/a.html run.ilog; echo "unwritable: $?"
echo "files made: $(ls a.html b.html 2>/dev/null | wc -l)"
