# SPDX-License-Identifier: MIT
# The capability set ingero-record --help names is enough: run as uid 0
# with only those capabilities (no CAP_SYS_ADMIN, no CAP_DAC_OVERRIDE),
# it records a workload of a root process that has every capability
# (reading its /proc files needs CAP_SYS_PTRACE then) with exact counts,
# its --check is ready, and it keeps exactly that set once attached.
. "$INGERO_TESTS/cli/caps/common.bash"
need_bpf

# shellcheck disable=SC2086 # the list is words
read -r -a only <<<"$(setpriv_args $NEEDED)"
"${only[@]}" ingero-record --check >check.out 2>&1 || { cat check.out >&2; fail "--check with only $NEEDED is not ready"; }
# shellcheck disable=SC2086
want=$(cap_mask $NEEDED)
"$W" --iters 200 --threads 2 --mix cudaMalloc,cudaMemcpy=2,cudaLaunchKernel=8,cudaStreamSynchronize,cudaFree \
	--ready-file ready --wait-file go --report report.json &
wpid=$!
wait_for ready
rm -f rec.err
"${only[@]}" ingero-record -o rec.ilog --pid "$wpid" 2>rec.err &
RECPID=$!
for ((i = 0; i < 400; i++)); do
	grep -q 'recording to' rec.err 2>/dev/null && break
	kill -0 "$RECPID" 2>/dev/null || fail "ingero-record exited early"
	sleep 0.05
done
grep -q 'recording to' rec.err || fail "ingero-record did not start in 20s"
assert_eq "CapEff while recording" "$(status_field "$RECPID" CapEff)" "$want"
assert_eq "NoNewPrivs while recording" "$(status_field "$RECPID" NoNewPrivs)" 1
touch go
wait "$wpid" || fail "workload failed"
stop_rec
export_log
assert_eq "per-op counts" "$(cuda_counts "$wpid")" "$(jq -S -c .calls report.json)"
assert_eq "losses" "$(jq -s '[.[] | select(.type=="loss") | .lost] | add' log.jsonl)" 0
grep -q 'warning' rec.err && fail "warnings with only $NEEDED: $(grep warning rec.err)"
exit 0
