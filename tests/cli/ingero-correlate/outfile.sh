# SPDX-License-Identifier: MIT
# -o FILE never destroys a recording (tests/cli/outfile.bash): an output
# that is an input is refused, and the file is written aside and renamed
# into place only when whole.
set -uo pipefail
source "$INGERO_TESTS/cli/outfile.bash"
make_logs
same_file ingero-correlate
works ingero-correlate
interrupted ingero-correlate
write_fails ingero-correlate
damaged ingero-correlate
# --baseline OLD is an input too
echo "--baseline in.ilog -o in.ilog: $(run ingero-correlate --baseline in.ilog -o in.ilog other.ilog)"
[[ $(ingero-export in.ilog | wc -l) -gt 0 ]] && echo "in.ilog: still a log"
