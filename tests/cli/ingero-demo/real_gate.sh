# the regression gate on real recordings: the same workload twice passes;
# the same workload with a 30% slower synchronize fails, naming that op
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
for n in a b; do
	ingero demo --bpf -q clean --seconds 5 -o $n.ilog >/dev/null || exit 1
done
ingero demo --bpf -q clean --seconds 5 --sync-factor 1.3 -o slow.ilog >/dev/null || exit 1
ingero-correlate --baseline a.ilog b.ilog >same.txt || { echo "same workload failed the gate" >&2; cat same.txt >&2; exit 1; }
ingero-correlate --baseline a.ilog slow.ilog >slow.txt
rc=$?
[ $rc = 1 ] && grep -q '^runtime  cudaStreamSynchronize .* REGRESSED$' slow.txt &&
	grep -q '^RESULT: FAIL: .*(cudaStreamSynchronize p' slow.txt || { echo "exit $rc" >&2; cat slow.txt >&2; exit 1; }
