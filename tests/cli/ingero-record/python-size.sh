# SPDX-License-Identifier: MIT
# A Python stack costs a few bytes per event, not kilobytes: 1000
# iterations of pytrain.py (3003 calls on 6 distinct Python stacks) are
# recorded with the walker and without it, and the encoded bytes of each
# record kind are compared (tests/tools/kindbytes).  Bounds, from the
# encoding rules of SPEC §4.2, not from this run:
#   - each distinct stack is written once, and each code object once per
#     process (nothing is freed here);
#   - a pystack record is at most 19 bytes (array, kind, id u64, pid u32,
#     frames array header) plus 15 per frame (array, code u64, lasti u32);
#   - a CUDA event grows only by its pystack_id: a 64-bit hash takes 9
#     bytes where 0 takes 1, so 8 bytes; 1 more is allowed per event on
#     average for the varint sizes of the time fields, which differ between
#     two runs.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
find_pythons
KB=$INGERO_OUT/tests/tools/kindbytes
[[ -x $KB ]] || fail "$KB not built"
py=${PYS[0]#*:}
export ITERS=1000

mkdir on off
(cd on && record_python "$py" && "$KB" rec.ilog >kinds) || exit 1
(cd off && record_python "$py" --py-walker=off && "$KB" rec.ilog >kinds) || exit 1
kind() { awk -v k="$2" -v f="$3" '$1 == k {v = $f} END {print v + 0}' "$1/kinds"; }
n_on=$(kind on cuda 2) n_off=$(kind off cuda 2)
assert_eq "calls with the walker" "$n_on" 3003
assert_eq "calls without" "$n_off" 3003

cd on
assert_eq "events without a Python stack" \
	"$(jq -s '[.[] | select(.type=="cuda" and .pystack_id=="0x0")] | length' log.jsonl)" 0
assert_eq "pystack records" "$(kind . pystack 2)" 6
assert_eq "pycode records written twice for one object" \
	"$(jq -s '[.[] | select(.type=="pycode") | [.pid, .code]] | group_by(.) | map(select(length > 1)) | length' \
		log.jsonl)" 0
frames=$(jq -s '[.[] | select(.type=="pystack") | .frames | length] | add' log.jsonl)
bound=$((19 * 6 + 15 * frames))
[[ $(kind . pystack 3) -le $bound ]] ||
	fail "pystack records take $(kind . pystack 3) bytes for $frames frames, more than $bound"
cd ..
grow=$(($(kind on cuda 3) - $(kind off cuda 3)))
[[ $grow -le $((9 * n_on)) ]] ||
	fail "CUDA events grew by $grow bytes over $n_on events with the walker, more than 9 each"
