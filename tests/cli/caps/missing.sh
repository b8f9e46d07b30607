# SPDX-License-Identifier: MIT
# --check names each missing capability on one line, with what it is
# needed for (and a fix line), and is then not ready (exit 1): run as
# uid 0 with the needed set less one capability, for each of them.
. "$INGERO_TESTS/cli/caps/common.bash"
[[ $(id -u) == 0 ]] || skip "needs root"

for cap in $NEEDED; do
	rest=()
	for c in $NEEDED; do
		[[ $c == "$cap" ]] || rest+=("$c")
	done
	read -r -a only <<<"$(setpriv_args "${rest[@]}")"
	rc=0
	"${only[@]}" ingero-record --check >check.out 2>&1 || rc=$?
	assert_eq "--check exit without $cap" "$rc" 1
	lines=$(grep -c "^FAIL $cap " check.out || true)
	assert_eq "FAIL lines for $cap" "$lines" 1
	grep -Eq "^FAIL $cap +missing: needed to [a-z].{20,}$" check.out ||
		fail "no one-line explanation for $cap: $(grep "$cap" check.out)"
	grep -A1 "^FAIL $cap " check.out | tail -n 1 | grep -Eq "^ +fix: .*capabilities\.add: \[${cap#CAP_}\]" ||
		fail "no fix line for $cap"
	# the others are not reported missing, and there is no "capabilities" ok line
	for c in "${rest[@]}"; do
		grep -q "^FAIL $c " check.out && fail "$c reported missing without $cap"
	done
	grep -q '^ok   capabilities ' check.out && fail "capabilities reported ok without $cap"
	tail -n 1 check.out | grep -q '^not ready: ' || fail "last line without $cap: $(tail -n 1 check.out)"
done
# with all of them: one ok line naming exactly the --help list
read -r -a only <<<"$(setpriv_args $NEEDED)"
"${only[@]}" ingero-record --check >check.out 2>&1 || true
assert_eq "--check's list" "$(sed -n 's/^ok   capabilities  *//p' check.out)" "$NEEDED"
