# SPDX-License-Identifier: MIT
# `ingero-export -o run.ilog run.ilog` used to truncate the recording before
# reading it: now one error line, exit 2, the log untouched.
set -uo pipefail
"$INGERO_OUT/tests/tools/synth" --events 200 -o run.ilog
sum=$(cksum <run.ilog)
rc=0
ingero-export -o run.ilog run.ilog || rc=$?
[[ $(cksum <run.ilog) == "$sum" ]] && echo "run.ilog unchanged"
exit $rc
