# SPDX-License-Identifier: MIT
# --help goes to stdout with exit 0; bad options and values are usage
# errors (exit 2) with one "ingero-record: ..." line.  No root needed.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
ingero-record --help >help.out
for s in USAGE OPTIONS EXAMPLES "EXIT STATUS" --pid --all-users --cuda-lib --duration \
	--ringbuf-size --sampling-rate --stack --check --flight --flight-size --hang-after --p99-over; do
	grep -q -- "$s" help.out || fail "--help lacks $s"
done
try() {
	local want=$1
	shift
	local rc=0
	ingero-record "$@" >out 2>err || rc=$?
	[[ $rc == 2 ]] || fail "ingero-record $*: exit $rc, want 2"
	[[ $(wc -l <err) == 1 && $(cat err) == "ingero-record: $want"* ]] ||
		fail "ingero-record $*: stderr '$(cat err)', want 'ingero-record: $want...'"
}
try "--pid: bad process list 'x1'" --pid x1
try "--duration: bad duration 'soon'" --duration soon
try "--ringbuf-size: bad size '12q'" --ringbuf-size 12q
try "--sampling-rate: want N >= 0, got '-3'" --sampling-rate -3
try "--stack: want true or false, got 'maybe'" --stack=maybe
try "--user: no such user 'no-such-user-xyz'" --user no-such-user-xyz
try "unknown or incomplete option '--frobnicate'" --frobnicate
try "unexpected argument 'stray' (a command goes after --)" stray
# --flight and its bounds
try "--flight: bad duration 'soon'" --flight soon
try "--flight: the window must be longer than 0" --flight 0
try "--flight-size: bad size '12q'" --flight 10s --flight-size 12q
try "--flight-size, --hang-after and --p99-over need --flight" --hang-after 5s
try "--flight-size, --hang-after and --p99-over need --flight" --p99-over 3
try "--p99-over: want a factor over 1 (3, 2.5), got '1'" --flight 10s --p99-over 1
try "--p99-over: want a factor over 1 (3, 2.5), got 'x'" --flight 10s --p99-over x
try "--flight writes its dumps to files: -o - is not one" --flight 10s -o -
try "--flight writes dumps, not a series: not with --rotate" --flight 10s --rotate 1G
try "--keep and --keep-size need --rotate or --flight" --keep 3
try "--keep: bad number of files '0' (1 or more)" --flight 10s --keep 0
