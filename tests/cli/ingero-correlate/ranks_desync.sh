# SPDX-License-Identifier: MIT
# Rank 3 of a simulated four-rank job calls ncclAllGather where the others
# call ncclAllReduce, as collective #40: one HIGH collective-desync chain
# naming both ranks, the ops and the number.  Its clean counterpart (the
# same job without the mismatch) has no chain at all.
set -uo pipefail
. "$INGERO_TESTS/cli/ingero-correlate/ranks.bash"
"$INGERO_OUT"/tests/tools/job -o ds.ilog --steps 100 --desync 3:40 || exit 1
ingero-correlate --json ds.ilog >ds.jsonl || exit 1
chains ds.jsonl >chains.jsonl
jq -s -e 'length == 1 and .[0].pattern == "collective-desync" and .[0].pid == 4003 and
	.[0].metrics.seq == 40 and .[0].metrics.rank == 3 and
	(.[0].root_cause | test("Rank 3 \\(PID 4003\\) called ncclAllGather .* as collective #40") and
	 test("called ncclAllReduce"))' chains.jsonl >/dev/null || { cat chains.jsonl; exit 1; } >&2
"$INGERO_OUT"/tests/tools/job -o clean.ilog --steps 100 || exit 1
ingero-correlate --json clean.ilog >clean.jsonl || exit 1
[[ -z $(chains clean.jsonl) ]] || { echo "clean job:"; chains clean.jsonl; exit 1; } >&2
