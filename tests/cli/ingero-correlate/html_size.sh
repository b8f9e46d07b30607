# SPDX-License-Identifier: MIT
# --html draws from per-window aggregates, never from events: a log with
# ten times the events (and stacks) gives a page of about the same size,
# far below 2 MB.  (Size and time at 50M events: bench/html/run.)
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 100000 --stacks 20 --seed 3 -o small.ilog
"$synth" --events 1000000 --stacks 20 --seed 3 -o big.ilog
ingero-correlate --html small.html small.ilog || exit 1
ingero-correlate --html big.html big.ilog || exit 1
a=$(stat -c %s small.html) b=$(stat -c %s big.html)
echo "100k events: $a bytes, 1M events: $b bytes" >&2
((b < 2 * 1024 * 1024 && b * 10 < a * 13)) || { echo "the page grew with the log" >&2; exit 1; }
