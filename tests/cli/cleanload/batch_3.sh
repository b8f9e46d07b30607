# SPDX-License-Identifier: MIT
# clean workloads, seeds 21-30, recorded for real (batch.bash)
first=21
. "$INGERO_TESTS/cli/cleanload/batch.bash"
