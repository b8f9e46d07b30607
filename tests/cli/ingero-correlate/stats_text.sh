# --stats: the table alone; --per-process adds PID and COMM columns
"$INGERO_OUT/tests/tools/scensynth" gpu-contention --seed 2 -o run.ilog || exit 1
ingero-correlate --stats run.ilog >a.txt || exit 1
grep -q '^STATISTICS (node demo-node)' a.txt && ! grep -q 'CAUSAL' a.txt || exit 1
ingero-correlate --stats --per-process --windows run.ilog >b.txt || exit 1
grep -q 'PID      COMM' b.txt && grep -q ' infer ' b.txt && grep -q ' train ' b.txt &&
	grep -q '^PER WINDOW' b.txt
