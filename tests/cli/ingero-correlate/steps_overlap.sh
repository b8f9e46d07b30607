# Marker calls that overlap (--jitter lengthens calls in place, as another
# thread's synchronize overlaps the one that opened a step): no step is
# longer than the run or negative (a marker that returned before the open
# step began ends nothing; it used to wrap to 18446744074 s)
"$INGERO_OUT/tests/tools/scensynth" clean --seed 1 --jitter 0.1 -o run.ilog || exit 1
ingero-correlate --json run.ilog >corr.jsonl || exit 1
jq -se 'map(select(.type == "steps")) | length == 1 and (.[0] | .steps > 1000 and
	.max_ns <= .end_ns - .start_ns and .min_ns > 0 and .p50_ns <= .max_ns)' corr.jsonl >/dev/null ||
	{ jq -c 'select(.type == "steps")' corr.jsonl >&2; exit 1; }
jq -se 'map(select(.type == "step") | .dur_ns) | length > 0 and all(. < 1e12)' corr.jsonl \
	>/dev/null || { echo "a step of a wrapped length" >&2; exit 1; }
