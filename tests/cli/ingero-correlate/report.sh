# the incident report: ranked chains with severity, title, root cause, fix,
# timeline; then statistics and the host summary
"$INGERO_OUT/tests/tools/scensynth" incident --seed 11 -o run.ilog || exit 1
ingero-correlate --report run.ilog >report.txt || exit 1
for w in "CAUSAL CHAINS" "#1 HIGH   cpu-contention" "Root cause: cudaStreamSynchronize in PID" \
	"Fix: Keep other work off" "Timeline:" "anomaly begins" "STATISTICS (node demo-node)" \
	"cudaStreamSynchronize" "HOST (node demo-node)" "snapshots: CPU"; do
	grep -qF -- "$w" report.txt || { echo "missing: $w" >&2; cat report.txt >&2; exit 1; }
done
# the same report from stdin
ingero-correlate --report <run.ilog | sed 1d >stdin.txt && sed 1d report.txt | cmp - stdin.txt
