# SPDX-License-Identifier: MIT
# Sourced by scenario tests (tests/cli/ingero-correlate, tests/cli/ingero-demo):
#
#   check_chain LOG PATTERN [CULPRIT_COMM] [OP]
#
# runs ingero-correlate --json on LOG and checks, with tests/scenarios/check.jq
# over ingero-export's records, that the top chain is PATTERN (with that
# culprit and op when given) and that every number its root-cause sentence
# quotes matches the log.  Returns 1 and explains on stderr otherwise.
#
#   no_chain_above LOG SEVERITY   fail if a chain of SEVERITY or worse exists
#   no_pattern LOG PATTERN        fail if any chain has PATTERN

# No chain is about PID 0, the idle task or an empty comm, as its subject
# or its culprit, nor blames the recorder or its watchdog (every demo and
# scenario test goes through here).
no_ghost_chain() {
	if jq -se 'any(.[]; .type=="chain" and (.pid == 0 or .comm == "" or
		(.culprit_pid != 0 and .culprit_comm == "") or
		.culprit_comm == "ingero-record" or .culprit_comm == "ingero-watchdog" or
		((.title + " " + .root_cause + " " + .fix) | test("\\(PID 0\\)|\\bPID 0\\b"))))' "$1" >/dev/null; then
		echo "a chain names PID 0, an empty comm, or the recorder (or its watchdog) as culprit:" >&2
		jq -r 'select(.type=="chain") | "  #\(.rank) \(.pattern) pid \(.pid) (\(.comm)) culprit \(.culprit_pid) (\(.culprit_comm)): \(.title)"' "$1" >&2
		return 1
	fi
}

check_chain() {
	local log=$1 pattern=$2 culprit=${3-} op=${4-}
	ingero-correlate --json "$log" >corr.jsonl || { echo "ingero-correlate failed" >&2; return 1; }
	ingero-export "$log" >recs.jsonl || { echo "ingero-export failed" >&2; return 1; }
	no_ghost_chain corr.jsonl || return 1
	if ! jq -rn --slurpfile c corr.jsonl --slurpfile r recs.jsonl --arg pattern "$pattern" \
		--arg culprit "$culprit" --arg op "$op" -f "$INGERO_TESTS/scenarios/check.jq" >check.out; then
		echo "check.jq failed" >&2
		return 1
	fi
	if grep -q '^FAIL' check.out || [ "$(grep -c '^ok' check.out)" -lt 6 ]; then
		grep -v '^ok' check.out >&2
		echo "($(grep -c '^ok' check.out) checks passed)" >&2
		jq -r 'select(.type=="chain") | "  #\(.rank) \(.severity) \(.pattern): \(.root_cause)"' corr.jsonl >&2
		return 1
	fi
	return 0
}

# no_chain_above LOG SEV: no chain of SEV or worse, but CPU contention the
# exported records prove (tests/scenarios/busy.jq): on a busy machine
# that is real, and a clean counterpart's test asserts what must hold
# under load - nothing blamed on the staged thing that is absent.
no_chain_above() {
	local log=$1 sev=$2 bad rc
	case $sev in
	LOW) bad='"LOW","MEDIUM","HIGH"' ;;
	MEDIUM) bad='"MEDIUM","HIGH"' ;;
	*) bad='"HIGH"' ;;
	esac
	ingero-correlate --json "$log" >corr.jsonl || return 1
	no_ghost_chain corr.jsonl || return 1
	ingero-export -t host,snapshot "$log" >busy-recs.jsonl || return 1
	# jq -e: 0 found, 1 none; anything else is an error, not "none"
	jq -se -L "$INGERO_TESTS/scenarios" --slurpfile r busy-recs.jsonl "include \"busy\";
		[\$r[] | cpu_wait_records] as \$sw |
		[\$r[] | select(.type == \"snapshot\" and .psi_cpu_some != null)] as \$snaps |
		any(.[]; .type==\"chain\" and (.severity as \$s | [$bad] | index(\$s) != null) and
			(proven_busy(\$sw; \$snaps) | not))" \
		corr.jsonl >/dev/null
	rc=$?
	[ $rc = 1 ] && return 0
	if [ $rc = 0 ]; then
		echo "unexpected $sev-or-worse chains:" >&2
		jq -r 'select(.type=="chain") | "  #\(.rank) \(.severity) \(.pattern): \(.root_cause)"' corr.jsonl >&2
	else
		echo "no_chain_above: jq failed ($rc)" >&2
	fi
	return 1
}

no_pattern() {
	local log=$1 pattern=$2
	ingero-correlate --json "$log" >corr.jsonl || return 1
	if jq -se --arg p "$pattern" 'any(.[]; .type=="chain" and .pattern==$p)' corr.jsonl >/dev/null; then
		echo "unexpected $pattern chain:" >&2
		jq -r 'select(.type=="chain") | "  #\(.rank) \(.severity) \(.pattern): \(.root_cause)"' corr.jsonl >&2
		return 1
	fi
}

# demo_together LOG "SCENARIO [ARGS]" [LOG "SCENARIO [ARGS]"]...: records the
# demos at the same time (ingero demo --bpf -q, a recorder each with a lock
# of its own, each on copies of the fake library of its own), so that a
# shared host's load and the hypervisor's steal, which change from one
# minute to the next, weigh on them alike: the runs a gate test compares
# then differ only in their workloads.  Fails, showing their output, when
# any of them fails.
demo_together() {
	local pids=() logs=() i
	while (($# >= 2)); do
		# shellcheck disable=SC2086 # the scenario and its arguments
		INGERO_RECORD_LOCK=$PWD/$1.lock ingero demo --bpf -q $2 -o "$1" >"$1.out" 2>&1 &
		pids+=($!) logs+=("$1")
		shift 2
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || {
			echo "recording ${logs[$i]} failed:" >&2
			cat "${logs[$i]}.out" >&2
			return 1
		}
	done
}

# need_loss_rules: for the net demos' iptables loss rules - skips (77)
# without iptables, fails under CI; on exit removes any rule of theirs
# (comment ingero-demo-net-PORT) left behind (the scenario removes its own;
# a killed run's stays).
need_loss_rules() {
	if ! command -v iptables >/dev/null || ! iptables -w -S INPUT >/dev/null 2>&1; then
		[ "${CI:-}" = true ] && { echo "CI: iptables is missing (tests/deps.txt)" >&2; exit 1; }
		echo "iptables is not available" >&2
		exit 77
	fi
	trap loss_rules_cleanup EXIT
}
loss_rules_cleanup() {
	iptables -w -S INPUT 2>/dev/null | grep -- '--comment "\?ingero-demo-net-' | sed 's/^-A /-D /' |
		while read -r rule; do eval "iptables -w $rule"; done
}
