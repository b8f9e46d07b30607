# SPDX-License-Identifier: MIT
# The same recording in the bare root through the fallback attach path
# (INGERO_RECORD_NO_MULTI=1: a perf uprobe per function, as on kernels
# before 6.6) counts the same.
. "$INGERO_TESTS/cli/dist/common.bash"
need_bpf

mkdir d
root_up "$(make_dist "$DIST_TEST/b1" "$PWD/d")"
export INGERO_RECORD_NO_MULTI=1
record_in_root
check_recording
jq -e '(.uprobe_multi // 0) == 0 and (.perf // 0) + (.perf_fd // 0) >= 45' links.json >/dev/null ||
	fail "links: $(cat links.json), want a perf uprobe per function (45), no uprobe_multi"
echo ok
