# SPDX-License-Identifier: MIT
# --py-walker=off: a Python process is recorded as before the walker
# existed -- every call, no pystack or pycode records, every event's
# pystack_id 0 -- and a bad value is a usage error.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"

rc=0
ingero-record --py-walker=bpf -o x.ilog 2>err || rc=$?
assert_eq "bad --py-walker exit" "$rc" 2
assert_eq "bad --py-walker message" "$(cat err)" "ingero-record: --py-walker: want ebpf or off, got 'bpf'"
ingero-record --help >help.txt; grep -q -- '--py-walker=MODE' help.txt || fail "--help lacks --py-walker"

need_bpf
find_pythons
record_python "${PYS[0]#*:}" --py-walker=off
assert_eq "calls" "$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)" 12
assert_eq "pystack ids" "$(jq -s -c '[.[] | select(.type=="cuda") | .pystack_id] | unique' log.jsonl)" '["0x0"]'
assert_eq "python records" \
	"$(jq -s '[.[] | select(.type=="pystack" or .type=="pycode" or
		(.type=="loss" and (.source | startswith("py"))))] | length' log.jsonl)" 0
