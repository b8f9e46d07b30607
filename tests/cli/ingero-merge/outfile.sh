# SPDX-License-Identifier: MIT
# -o FILE never destroys a recording (tests/cli/outfile.bash): an output
# that is an input is refused, and the file is written aside and renamed
# into place only when whole.
set -uo pipefail
source "$INGERO_TESTS/cli/outfile.bash"
make_logs
# -q: no clock report
same_file ingero-merge -q
works ingero-merge -q
interrupted ingero-merge -q
write_fails ingero-merge -q
damaged ingero-merge -q
