# SPDX-License-Identifier: MIT
# clean workloads, seeds 11-20, recorded for real (batch.bash)
first=11
. "$INGERO_TESTS/cli/cleanload/batch.bash"
