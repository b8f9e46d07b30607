# SPDX-License-Identifier: MIT
# The chains the export stores are ingero-correlate's under the same
# analysis options, the defaults or not: a statistics window
# (--stats-window here, --window there), a process, a time range.  Every
# field but the score (rounded by --json) and the times (monotonic there,
# wall clock here; the evidence and metrics carry the monotonic ones),
# compared as JSON.  The options change the chains: equal chains under
# them prove the options reached the database.
set -euo pipefail
"$INGERO_OUT"/tests/tools/scensynth incident --seed 2 -o run.ilog
pid=$(ingero-export -t cuda run.ilog | jq -s '.[0].pid')
db_chains() { # DB: one JSON object per chain, in rank order
	sqlite3 -json "$1" "SELECT printf('0x%016x', chain_id) AS id, severity_name AS severity,
		pattern, pid, comm, op_name AS op, culprit_pid, culprit_comm, lost_ns, title,
		root_cause, fix, evidence, metrics FROM chains_named ORDER BY rowid" |
		jq -cS '.[]? | .evidence |= fromjson | .metrics |= fromjson'
}
cor_chains() { # OPTIONS...
	ingero-correlate --json "$@" run.ilog | jq -cS 'select(.type == "chain") |
		{id, severity, pattern, pid, comm, op, culprit_pid: (.culprit_pid // 0),
		 culprit_comm: (.culprit_comm // ""), lost_ns, title, root_cause, fix, evidence,
		 metrics}'
}
n=0
while IFS='|' read -r name copts eopts; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the options are words
	ingero-export -f sqlite -o "$n.db" $eopts run.ilog
	# shellcheck disable=SC2086
	cor_chains $copts >"cor$n.txt"
	db_chains "$n.db" >"db$n.txt"
	if cmp -s "db$n.txt" "cor$n.txt"; then
		echo "$name: $(wc -l <"db$n.txt") chains equal"
	else
		echo "$name: differ"
		diff "db$n.txt" "cor$n.txt" | head -4 | cut -c1-300
	fi
done <<LIST
defaults||
window 500ms|--window 500ms|--stats-window 500ms
window 40ms, pid|--window 40ms --pid $pid|--stats-window 40ms --pid $pid
since, until, window 250ms|--since +3s --until +14s --window 250ms|--since +3s --until +14s --stats-window 250ms
LIST
for k in 2 3 4; do
	cmp -s cor1.txt "cor$k.txt" && echo "options $k: the same chains as the defaults"
done
echo done
