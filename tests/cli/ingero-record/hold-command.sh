# SPDX-License-Identifier: MIT
# A COMMAND's process stopped at a library load (the ld.so hook: stopped
# until the recorder has attached to what it loaded) is never left stopped
# by a dying or stuck recorder: the watchdog resumes it (1) within 1 s when
# the recorder is killed with SIGKILL, and (2) after --hold-max when the
# recorder does not answer, which the log counts (loss "holds").  The
# command waits on a FIFO (a shell builtin: no program of its own starts
# while the recorder is stopped; it says when it waits there), then starts
# the workload, whose start-up loads its libraries.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
cat >cmd.sh <<SH
#!/bin/bash
echo ready >"\$1.ready"
read -r _ <go
t0=\$EPOCHREALTIME
"$W" --iters 10 --report "\$1.json" &
echo \$! >"\$1.pid"
wait \$!
echo \$? >"\$1.rc"
t1=\$EPOCHREALTIME
echo \$(( (\${t1/./} - \${t0/./}) / 1000 )) >"\$1.ms"
SH
chmod +x cmd.sh

# (1) SIGKILL while a library load holds the command's process
mkfifo go
start_rec -v --hold-max 60s -- ./cmd.sh a
wait_for a.ready
wd=$(sed -n 's/.*; watchdog \([0-9]*\)$/\1/p' rec.err)
[[ -n $wd ]] || fail "no watchdog named on stderr"
kill -STOP "$RECPID" # it can no longer scan: the workload stays stopped
echo go >go
wait_for a.pid
w=$(<a.pid)
kill_holder "$w" "$wd"
wait_for a.rc
assert_eq "workload a's exit status" "$(<a.rc)" 0

# (2) a recorder that does not answer: resumed after --hold-max, counted
start_rec --hold-max 300ms -- ./cmd.sh b
wait_for b.ready
kill -STOP "$RECPID"
echo go >go
wait_for b.ms
echo "workload b ran $(<b.ms) ms with the recorder stopped" >&2
(($(<b.ms) >= 300)) || fail "workload b was not held ($(<b.ms) ms)"
assert_eq "workload b's exit status" "$(<b.rc)" 0
kill -CONT "$RECPID"
wait "$RECPID" || fail "ingero-record exited $? after the command"
export_log
# held at least at its start-up; the stops the watchdog ended are lost
holds=$(last_loss holds)
jq -e '.lost >= 1 and .seen >= .lost' <<<"$holds" >/dev/null || fail "holds: $holds"
