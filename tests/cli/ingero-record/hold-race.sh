# SPDX-License-Identifier: MIT
# A COMMAND's process is stopped at each library load (the ld.so hook)
# until the recorder has scanned it, then resumed: never left stopped.
# The kernel makes the stop pending before the recorder can read the note
# asking for the scan; a note readable first could be answered (SIGCONT)
# while the probe was preempted on its way to SIGSTOP, which then stopped
# the process for good and the recording never ended (CI saw it in
# cli/cleanload and cli/gpu-fake).  Four loops of 1500 short-lived
# dynamically linked programs under the recorder, with two CPU hogs
# beside them to preempt the probes, three times: each recording must end
# within 60 s with every process resumed (the old order hung about one
# run in three here).
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
cat >loops.sh <<'SH'
#!/bin/bash
for j in 1 2 3 4; do (for ((i = 0; i < 1500; i++)); do /bin/true; done) & done
wait
SH
chmod +x loops.sh
hogs=()
for k in 1 2; do
	(while :; do :; done) &
	hogs+=($!)
done
trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT
for run in 1 2 3; do
	rc=0
	timeout -k 5 60 ingero-record -q -o "run$run.ilog" -- ./loops.sh 2>rec.err || rc=$?
	((rc != 124 && rc != 137)) || fail "run $run: the recording did not end in 60 s (a process left stopped)"
	((rc == 0)) || fail "run $run: ingero-record exited $rc"
	ingero-export "run$run.ilog" >"run$run.jsonl" || fail "run $run: ingero-export failed"
	execs=$(jq -s '[.[] | select(.type == "host" and .host_type == "exec")] | length' "run$run.jsonl")
	echo "run $run: $execs programs started and resumed" >&2
	((execs >= 6000)) || fail "run $run: $execs exec records, expected 6000 and more"
done
