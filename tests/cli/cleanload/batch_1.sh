# SPDX-License-Identifier: MIT
# clean workloads, seeds 1-10, recorded for real (batch.bash)
first=1
. "$INGERO_TESTS/cli/cleanload/batch.bash"
