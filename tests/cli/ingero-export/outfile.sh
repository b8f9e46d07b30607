# SPDX-License-Identifier: MIT
# -o FILE never destroys a recording (tests/cli/outfile.bash): an output
# that is an input is refused, and the file is written aside and renamed
# into place only when whole.
set -uo pipefail
source "$INGERO_TESTS/cli/outfile.bash"
make_logs
same_file ingero-export
works ingero-export
interrupted ingero-export
write_fails ingero-export
damaged ingero-export
# a SQLite database is opened by its sink (appending), never over an input
echo "--format sqlite -o in.ilog: $(run ingero-export -f sqlite -o in.ilog other.ilog in.ilog)"
[[ $(ingero-export in.ilog | wc -l) -gt 0 ]] && echo "in.ilog: still a log"
# the modes open(2) would give: 0666 less the umask for a new file, the
# existing file's own when it is replaced
rm -f out.file
(umask 027 && ingero-export -o out.file in.ilog) && echo "new, umask 027: $(stat -c %a out.file)"
chmod 600 out.file && ingero-export -o out.file in.ilog && echo "replaced 600: $(stat -c %a out.file)"
# a link to the output stays a link; its target is replaced
ln -s out.file out.link && ingero-export -o out.link other.ilog &&
	[[ -L out.link ]] && ingero-export other.ilog | cmp -s - out.file && echo "-o a link: written through it"
# -o - and a device are written as they are
ingero-export -o - in.ilog | cmp -s - <(ingero-export in.ilog) && echo "-o -: stdout"
ingero-export -o /dev/null in.ilog && echo "-o /dev/null: written, still a device: $(stat -c %F /dev/null)"
leftovers
