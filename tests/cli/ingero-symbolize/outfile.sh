# SPDX-License-Identifier: MIT
# -o FILE never destroys a recording (tests/cli/outfile.bash): an output
# that is an input is refused, and the file is written aside and renamed
# into place only when whole.
set -uo pipefail
source "$INGERO_TESTS/cli/outfile.bash"
make_logs
# -q: no warnings about the files the synthesized stacks name
same_file ingero-symbolize -q
works ingero-symbolize -q
interrupted ingero-symbolize -q
write_fails ingero-symbolize -q
damaged ingero-symbolize -q
