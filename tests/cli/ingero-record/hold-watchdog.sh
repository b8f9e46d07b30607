# SPDX-License-Identifier: MIT
# A dying or stuck recorder never leaves a workload stopped.  A process
# that maps a CUDA library file never attached is held until the recorder
# has attached to it; the recorder's watchdog (a process of its own)
# resumes it (1) within 1 s when the recorder is killed with SIGKILL while
# holding it, and (2) after --hold-max when the recorder does not answer,
# which the log counts (loss "holds": lost 1 of 1).
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

mkdir a b && cp "$FAKE/libcudart.so.13" a/ && cp "$FAKE/libcudart.so.13" b/

# (1) SIGKILL while holding
start_rec --all-users -v --hold-max 60s
wd=$(sed -n 's/.*; watchdog \([0-9]*\)$/\1/p' rec.err)
[[ -n $wd ]] || fail "no watchdog named on stderr"
kill -STOP "$RECPID" # it can no longer attach: the workload stays held
"$W" --lib-dir "$PWD/a" --iters 10 --report a.json &
w=$!
kill_holder "$w" "$wd"
wait "$w" || fail "the workload failed after its release"

# (2) a recorder that does not answer: resumed after --hold-max, counted
start_rec --all-users --hold-max 300ms
kill -STOP "$RECPID"
t0=$(date +%s%N)
"$W" --lib-dir "$PWD/b" --iters 10 --report b.json || fail "workload b failed"
ms=$((($(date +%s%N) - t0) / 1000000))
echo "workload b ran ${ms} ms with the recorder stopped" >&2
((ms >= 300)) || fail "workload b was not held (${ms} ms)"
kill -CONT "$RECPID"
stop_rec
export_log
assert_eq "holds" "$(last_loss holds '[.lost, .seen]')" "[1,1]"
