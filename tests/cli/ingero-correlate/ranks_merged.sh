# SPDX-License-Identifier: MIT
# The straggler job recorded as one node and as four (one log per rank,
# merged with ingero-merge, and given to ingero-correlate unmerged): the
# same chains -- pattern, pid, culprit, title, root cause and lost time --
# whichever path the ranks took.
set -uo pipefail
job="$INGERO_OUT"/tests/tools/job
"$job" -o one.ilog --steps 300 --straggler 1:4ms || exit 1
"$job" -o r --per-rank --steps 300 --straggler 1:4ms || exit 1
ingero-merge -q -o merged.ilog r0.ilog r1.ilog r2.ilog r3.ilog || exit 1
key='select(.type == "chain") | [.pattern, .pid, .culprit_pid, .title, .root_cause, .lost_ns]'
ingero-correlate --json one.ilog | jq -c "$key" >one.txt || exit 1
ingero-correlate --json merged.ilog | jq -c "$key" >merged.txt || exit 1
ingero-correlate --json r0.ilog r1.ilog r2.ilog r3.ilog | jq -c "$key" >apart.txt || exit 1
[[ -s one.txt ]] && grep -q '"straggler",4001,812' one.txt || { echo "one node:"; cat one.txt; exit 1; } >&2
cmp -s one.txt merged.txt || { echo "one node vs merged:"; diff one.txt merged.txt; exit 1; } >&2
cmp -s one.txt apart.txt || { echo "one node vs unmerged:"; diff one.txt apart.txt; exit 1; } >&2
