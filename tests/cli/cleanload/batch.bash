# SPDX-License-Identifier: MIT
# Sourced by batch_1.sh .. batch_3.sh (10 seeds each, so that each case
# stays within the per-case time limit; 30 seeds in all), not a case.
# The false-alarm rate on clean workloads, recorded for real: seeded
# clean workloads (tests/scenarios/cleanload.sh: threads, lifetimes from
# milliseconds to seconds, forks, bursts of short-lived processes, dlopen
# timing, call mixes, jittered latencies, a cold first call, background
# host noise) each under ingero-record; no seed may give a HIGH or MEDIUM
# chain other than CPU contention the records prove, a chain blaming the
# process itself, the recorder or PID 0, or more than one
# recording-overhead note.  Prints the LOW rate on stderr.
# CLEAN_SEEDS (the case's ten by default) and CLEAN_MAX_S (default 4: the
# longest process, seconds) size the batch; bench/cleanload/run runs
# hundreds.
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
ingero-record --check 2>/dev/null | grep -q '^ok   bpf ' ||
	{ echo "BPF programs cannot be loaded here" >&2; exit 77; }
export INGERO_RECORD_LOCK=$PWD/record.lock
rc=0 low=0 n=0 busy=0 failed=0
for seed in ${CLEAN_SEEDS:-$(seq "$first" $((first + 9)))}; do
	"$INGERO_TESTS/scenarios/record_clean.sh" "$seed" "${CLEAN_MAX_S:-4}" >line.txt
	r=$?
	cat line.txt >&2
	((r == 2)) && exit 1
	n=$((n + 1))
	low=$((low + $(head -n 1 line.txt | sed -E 's/.* ([0-9]+) low .*/\1/')))
	if ((r)); then
		# CPU contention the records prove is real, not a false alarm:
		# a neighbour on this host (another build), or the generator's
		# own processes taking each other's CPU on a small machine, the
		# chain naming who did (record_clean.sh says how it is proven)
		if head -n 1 line.txt | grep -q 'ALARM busy$'; then
			busy=$((busy + 1))
			continue
		fi
		rc=1 failed=$((failed + 1))
	fi
done
echo "$n seeds: $failed failed, $busy with proven CPU contention (not counted), $low LOW chains ($(awk -v l=$low -v n=$n 'BEGIN { printf "%.2f", l / n }') per seed)" >&2
exit $rc
