# a new HIGH chain fails the gate even if the threshold hides the latency
s="$INGERO_OUT/tests/tools/scensynth"
"$s" clean --seed 1 -o old.ilog && "$s" incident --seed 2 -o new.ilog || exit 1
ingero-correlate --baseline old.ilog --threshold 10000 new.ilog >out.txt
[ $? = 1 ] || { cat out.txt >&2; exit 1; }
grep -q '^NEW CHAINS (.*1 HIGH)' out.txt && grep -q '^  HIGH   cpu-contention: ' out.txt &&
	grep -q '^RESULT: FAIL: 1 new HIGH chain$' out.txt || { cat out.txt >&2; exit 1; }
# the other way round: the HIGH chain is gone, that is no failure
ingero-correlate --baseline new.ilog --threshold 10000 old.ilog >/dev/null
