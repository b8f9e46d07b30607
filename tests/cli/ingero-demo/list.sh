# these demo scenarios run for real (oom too); the rest are synthetic only
ingero demo --list >l.txt || exit 1
for s in incident cold-start memcpy-bottleneck periodic-spike graph-recapture gpu-contention \
	straggler hang ranks-clean; do
	grep "^$s " l.txt | grep -qv "synthetic only" || { echo "$s" >&2; exit 1; }
done
grep -q "^oom " l.txt && ! grep -q "(synthetic only)" <(grep "^oom " l.txt)
