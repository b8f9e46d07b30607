# SPDX-License-Identifier: MIT
# A COMMAND's process is stopped at each library load (the ld.so hook)
# until the recorder has scanned it, then resumed: never left stopped.
# The kernel makes the stop pending before the recorder can read the note
# asking for the scan; a note readable first could be answered (SIGCONT)
# while the probe was preempted on its way to SIGSTOP, which then stopped
# the process for good and the recording never ended (CI saw it in
# cli/cleanload and cli/gpu-fake).  Four loops of 750 short-lived
# dynamically linked programs under the recorder, with two CPU hogs
# beside them to preempt the probes, three times: each recording must end
# with every process resumed, none stopped for 10 s (the old order hung
# about one run in three here).
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
cat >loops.sh <<'SH'
#!/bin/bash
for j in 1 2 3 4; do (for ((i = 0; i < 750; i++)); do /bin/true; done) & done
wait
SH
chmod +x loops.sh
hogs=()
for k in 1 2; do
	(while :; do :; done) &
	hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT
# A process left stopped is one of this session in state T for 10 s (ten times --hold-max,
# after which the watchdog resumes any hold): the recording's length
# says nothing (6000 programs stopped twice each took 130 s beside
# the hogs on a busy 2-CPU machine).  The recording still has to end.
stopped_too_long() {
	local -A since=()
	local now pid sid st me
	me=$(ps -o sid= -p $$)
	while kill -0 "$1" 2>/dev/null; do
		now=$SECONDS
		local -A seen=()
		while read -r pid sid st; do
			[[ $st == T* && $sid == "${me// /}" ]] || continue
			seen[$pid]=1
			[[ -n ${since[$pid]:-} ]] || since[$pid]=$now
			((now - since[$pid] < 10)) || { echo "$pid"; return 0; }
		done < <(ps -e -o pid=,sid=,stat=)
		for pid in "${!since[@]}"; do
			[[ -n ${seen[$pid]:-} ]] || unset "since[$pid]"
		done
		unset seen
		sleep 1
	done
	return 1
}
for run in 1 2 3; do
	rc=0
	timeout -k 5 600 ingero-record -q -o "run$run.ilog" -- ./loops.sh 2>rec.err &
	recpid=$!
	if left=$(stopped_too_long "$recpid"); then
		ps -o pid,stat,etimes,args -p "$left" >&2 || true
		kill "$recpid" 2>/dev/null || true
		wait "$recpid" 2>/dev/null || true
		fail "run $run: process $left left stopped for 10 s"
	fi
	wait "$recpid" || rc=$?
	((rc != 124 && rc != 137)) || fail "run $run: the recording did not end in 600 s"
	((rc == 0)) || fail "run $run: ingero-record exited $rc"
	ingero-export "run$run.ilog" >"run$run.jsonl" || fail "run $run: ingero-export failed"
	execs=$(jq -s '[.[] | select(.type == "host" and .host_type == "exec")] | length' "run$run.jsonl")
	echo "run $run: $execs programs started and resumed" >&2
	((execs >= 3000)) || fail "run $run: $execs exec records, expected 3000 and more"
done
