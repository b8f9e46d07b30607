# the same workload with a 30% slower synchronize: exit 1, that op named
s="$INGERO_OUT/tests/tools/scensynth"
"$s" clean --seed 1 -o old.ilog && "$s" clean --seed 2 --sync-factor 1.3 -o new.ilog || exit 1
ingero-correlate --baseline old.ilog new.ilog >out.txt
rc=$?
[ $rc = 1 ] || { echo "exit $rc" >&2; cat out.txt >&2; exit 1; }
grep -q '^runtime  cudaStreamSynchronize .* REGRESSED$' out.txt &&
	grep -q '^RESULT: FAIL: step time of python3 +2[0-9.]*% (each step: cudaStreamSynchronize +[0-9.]* us, as many calls); 1 op regressed beyond 20% (cudaStreamSynchronize p99 +' out.txt || { cat out.txt >&2; exit 1; }
# the steps: one per synchronize, the median step ~27% longer
grep -q '^STEPS python3 (PID [0-9]* -> [0-9]*): [0-9]* -> [0-9]* steps of 1 cudaStreamSynchronize; median step 2.[0-9]* ms -> 2.[0-9]* ms (+2[0-9.]*%, own spread [0-9.]*%): REGRESSED$' out.txt || { cat out.txt >&2; exit 1; }
# the launches did not regress
! grep -q 'cudaLaunchKernel .*REGRESSED' out.txt || exit 1
# a 40% threshold lets it through; JSON says the same
ingero-correlate --baseline old.ilog --threshold 40 new.ilog >/dev/null || exit 1
ingero-correlate --baseline old.ilog --json new.ilog >out.jsonl
[ $? = 1 ] && jq -se 'any(.[]; .type=="verdict" and .pass==false and .regressed_ops==1 and .regressed_steps==1)' out.jsonl >/dev/null &&
	jq -se 'any(.[]; .type=="step_diff" and .regressed and .d_step > 0.2 and .changes[0].op=="cudaStreamSynchronize")' out.jsonl >/dev/null &&
	jq -se 'any(.[]; .type=="diff" and .op=="cudaStreamSynchronize" and .regressed and .d_p99 > 0.2)' out.jsonl >/dev/null
