# the regression gate: two runs of the same workload (different random
# timings) pass, exit 0, with the diff table
s="$INGERO_OUT/tests/tools/scensynth"
"$s" clean --seed 1 -o old.ilog && "$s" clean --seed 2 -o new.ilog || exit 1
ingero-correlate --baseline old.ilog new.ilog >out.txt || { cat out.txt >&2; exit 1; }
grep -q '^RESULT: PASS' out.txt && grep -q 'cudaStreamSynchronize' out.txt && grep -q 'P99 OLD -> NEW' out.txt
