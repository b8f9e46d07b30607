# SPDX-License-Identifier: MIT
# Sourced by real_noisy-neighbour.sh and real_neighbour-quiet.sh (not a case
# itself): on exit, remove whatever cgroups of the demo's two pods a killed
# run left (ingero demo removes its own).
sweep() {
	local d
	for d in $(find /sys/fs/cgroup -depth -type d -path '*/kubepods/besteffort/pod7a1b0000-2222-4333-8444-555566667777*' \
		-o -depth -type d -path '*/kubepods/besteffort/pod0d3e0000-1111-4222-8333-444455556666*' 2>/dev/null); do
		rmdir "$d" 2>/dev/null
	done
}
trap sweep EXIT
