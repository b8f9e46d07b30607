# SPDX-License-Identifier: MIT
# Random bit flips over a log of frames of 500 records (tests/data/training.ilog):
# each costs its own frame and no other (SPEC §9; bitflip.bash says how it is
# checked).  tests/cli/ingero-record/bitflip.sh does the same on a recording.
set -uo pipefail
. "$INGERO_TESTS/cli/ingero-export/bitflip.bash"
cp "$INGERO_TESTS/data/training.ilog" .
flip_check training.ilog 25 2711 || exit 1
((flips_damaged >= 15)) || { echo "FAIL: only $flips_damaged of 25 flips were damage" >&2; exit 1; }
echo "25 flips: each read back all but its frame"
