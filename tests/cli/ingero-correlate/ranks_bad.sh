# SPDX-License-Identifier: MIT
# Ranks that disagree about their communicator: one declaring another
# number of ranks, one repeating a rank, one whose init is not in the log.
# Each gives one warning line naming the communicator or the calls, exit 0,
# and no straggler (the straggler job's late rank is among the consistent
# ones: it is still found where the others can be compared).
set -uo pipefail
job="$INGERO_OUT"/tests/tools/job
for bad in nranks repeat noinit; do
	"$job" -o $bad.ilog --steps 200 --bad $bad || exit 1
	ingero-correlate --json $bad.ilog >$bad.jsonl 2>$bad.err || { cat $bad.err; exit 1; } >&2
	[[ $(wc -l <$bad.err) -eq 1 ]] || { echo "$bad:"; cat $bad.err; exit 1; } >&2
	case $bad in
	nranks) grep -q '^ingero-correlate: warning: communicator [0-9a-f]*: pid 4003 says 5 ranks' $bad.err ;;
	repeat) grep -q '^ingero-correlate: warning: communicator [0-9a-f]*: rank 0 repeated (pid 4003)' $bad.err ;;
	noinit) grep -q '^ingero-correlate: warning: 200 collective calls on communicators whose init is not in the log (first: pid 4003' $bad.err ;;
	esac || { echo "$bad:"; cat $bad.err; exit 1; } >&2
	if jq -e 'select(.type == "chain")' $bad.jsonl >/dev/null; then
		echo "$bad:" >&2
		jq -c 'select(.type == "chain") | [.pattern, .pid, .title]' $bad.jsonl >&2
		exit 1
	fi
done
