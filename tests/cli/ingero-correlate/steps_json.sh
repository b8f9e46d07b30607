# training steps in --json and --report, recomputed from the exported
# records: the clean loop synchronizes once per step, so its steps run from
# one synchronize's return to the next one's, and each calls 8 launches
s="$INGERO_OUT/tests/tools/scensynth"
"$s" clean --seed 3 -o run.ilog || exit 1
ingero-correlate --json -w run.ilog >out.jsonl || exit 1
# without --windows: the steps whose composition is kept, 1,024 and 16
ingero-correlate --json run.ilog | jq -se 'map(select(.type=="step")) | length == 1040 and all(.ops | length > 0)' >/dev/null ||
	{ echo "kept steps" >&2; exit 1; }
ingero-export run.ilog | jq -c 'select(.type=="cuda" and .op=="cudaStreamSynchronize")
	| [.ts_ns + .dur_ns]' >syncs.txt
jq -se --slurpfile sy syncs.txt '
	(map(select(.type=="steps")) | .[0]) as $p
	| (map(select(.type=="step"))) as $st
	| $p.rule == "synchronize" and $p.marker_op == "cudaStreamSynchronize" and $p.per_step == 1
	and $p.steps == ($sy | length) - 1 and ($st | length) == $p.steps
	and ([range(0; $p.steps)] | all(. as $i | $st[$i].start_ns == $sy[$i][0]
		and $st[$i].end_ns == $sy[$i + 1][0]))
	and ($st | map(.dur_ns) | sort | .[(length + 1) / 2 - 1 | floor]) as $med
		| ($p.p50_ns - $med | fabs) <= $med * 0.004' out.jsonl >/dev/null ||
	{ echo "steps disagree with the records" >&2; grep '"steps"' out.jsonl >&2; exit 1; }
jq -se '(map(select(.type=="step_site" and .op=="cudaLaunchKernel")) | .[0].calls_per_step == 8)
	and (map(select(.type=="step" and .step < 1024)) | all(.ops | length == 3))
	and (map(select(.type=="step" and .step >= 1024 and .ops)) | length == 16)' out.jsonl >/dev/null ||
	{ echo "step composition" >&2; exit 1; }
ingero-correlate --report run.ilog >out.txt
grep -Eq '^STEPS \(PID [0-9]+ python3\): [0-9]+ steps, one per 1 cudaStreamSynchronize call \(synchronize\), p50 2\.[0-9]+ ms' out.txt &&
	grep -Eq '^ +8\.0 +[0-9.]+ us  cudaLaunchKernel$' out.txt &&
	grep -Eq '^    step [0-9]+ at \+[0-9.]+ s: ' out.txt || { cat out.txt >&2; exit 1; }
