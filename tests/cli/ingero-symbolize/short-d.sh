# SPDX-License-Identifier: MIT
# --debug-dir has no short letter (-d is --duration in ingero-record): the
# old -d DIR is refused with one line naming --debug-dir, exit 2.
set -uo pipefail
"$INGERO_OUT/tests/tools/synth" --events 10 -o ok.ilog
rc=0
ingero-symbolize -d bundle ok.ilog >out.txt 2>err.txt || rc=$?
echo "exit $rc, stdout $(wc -c <out.txt) bytes: $(cat err.txt)"
ingero-symbolize -q --debug-dir bundle ok.ilog | ingero-export | wc -l
