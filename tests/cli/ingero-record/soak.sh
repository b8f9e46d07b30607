# SPDX-License-Identifier: MIT
# The 1-minute soak (bench/soak/run 60, its 30-minute run is the bench):
# a launch-heavy workload recorded with --rotate 128KiB --keep 4 for 60 s:
# the recorder's RSS flat within 10% after warm-up, the files within the
# budget, no event lost, every file kept reads whole, files rotated past
# --keep.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
rc=0
ROTATE=128KiB KEEP=4 RATE=20000 SAMPLE=5 INGERO_BIN=$(dirname "$(command -v ingero-record)") \
	"$INGERO_TESTS/../bench/soak/run" 60 >soak.out 2>&1 || rc=$?
cat soak.out >&2
((rc == 0)) || fail "soak: exit $rc"
grep -q "^soak: ok$" soak.out || fail "soak: no verdict"
