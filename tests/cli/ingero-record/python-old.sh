# SPDX-License-Identifier: MIT
# A CPython without a frame walker here (3.9 and older): one warning
# naming the interpreter and its version, its calls recorded as usual, no
# Python records, nothing read from it on a guess.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
root=${PYENV_ROOT:-}
[[ -n $root && -d $root/versions ]] || root=${HOME:-/root}/.pyenv
[[ -d $root/versions ]] || root=/root/.pyenv
py=
for d in "$root"/versions/3.[6-9].*; do
	[[ -x $d/bin/python3 ]] && py=$d/bin/python3
done
if [[ -z $py ]]; then
	case ${CI:-} in true | 1 | yes) fail "no pyenv CPython 3.6-3.9 on a CI machine" ;; esac
	skip "no CPython 3.6-3.9 here"
fi
minor=$("$py" -c 'import sys; print(sys.version_info[1])')
record_python "$py"
assert_eq "calls" "$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)" 12
assert_eq "python records" \
	"$(jq -s '[.[] | select(.type=="pystack" or .type=="pycode")] | length' log.jsonl)" 0
assert_eq "warnings" "$(grep -c "warning: .*libpython3[.]$minor[.]so.*: CPython 3[.]$minor: no frame walker" rec.err)" 1
