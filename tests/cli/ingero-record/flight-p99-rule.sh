# SPDX-License-Identifier: MIT
# The --p99-over rule itself (cmd/ingero-record/p99.c, run by the p99sim
# tool on scripted seconds: no recorder, no clock): each (process, op) is
# judged against its own baseline.  A process making 50 calls a second
# whose calls slow down fires beside a process making 1,000 steady calls a
# second of the same op, though its slow calls are 0.2% of the op's (the
# same calls made by one process fire nothing: their p99 is a fast call);
# steady processes fire nothing; at most 256 (process, op) pairs are held
# (one warning beyond), each freed after 65 s without a call.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
sim=$INGERO_OUT/tests/tools/p99sim
[[ -x $sim ]] || fail "$sim not built"

# op 7 (cudaMemcpy): 5 ms calls; the step: 805 ms
steady="100:7:1000:5000000 200:7:50:5000000"
step="100:7:1000:5000000 200:7:48:5000000 200:7:2:805000000"
printf '70*%s\n10*%s\n' "$steady" "$step" | "$sim" 8 >two.out 2>two.err
assert() { [[ $2 == "$3" ]] || fail "$1: got '$2', want '$3'"; }
assert "two processes, one slowed: one fire, for it" \
	"$(awk '$1=="fire" { print $3, $4, ($5 >= 780000000), ($6 < 6000000), ($2 >= 70) }' two.out)" \
	"200 7 1 1 1"
# the same calls, all of one process
printf '70*%s\n10*%s\n' "100:7:1050:5000000" "100:7:1048:5000000 100:7:2:805000000" |
	"$sim" 8 >one.out
assert "the same calls in one process" "$(grep -c fire one.out || true)" 0
printf '80*%s\n' "$steady" | "$sim" 8 >steady.out
assert "steady processes" "$(grep -c fire steady.out || true)" 0
# 300 processes with one call each: 256 held, one warning; after 65 s
# with no call none; then a new one
words=$(for ((p = 1; p <= 300; p++)); do printf '%d:7:1:5000000 ' $p; done)
printf '%s\n' "$words" | "$sim" 8 >many.out 2>many.err
assert "300 processes: pairs held" "$(cat many.out)" "series 256"
assert "300 processes: one warning" "$(grep -c 'p99-over: 256 (process, op) pairs judged already' many.err)" 1
printf '%s\n64*\n' "$words" | "$sim" 8 >quiet64.out 2>/dev/null
assert "65 s held" "$(cat quiet64.out)" "series 256"
printf '%s\n65*\n9:7:1:5000000\n' "$words" | "$sim" 8 >quiet.out 2>/dev/null
assert "quiet for 65 s: freed, a new one held" "$(cat quiet.out)" "series 1"
