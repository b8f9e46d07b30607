# --help lists every scenario and the options; `ingero help demo` is the same
ingero-demo --help >a.txt || exit 1
for w in USAGE SCENARIOS incident cold-start memcpy-bottleneck periodic-spike graph-recapture \
	gpu-contention straggler hang ranks-clean --no-bpf --bpf --check --two-nodes --sigkill \
	"EXIT STATUS"; do
	grep -q -- "$w" a.txt || { echo "missing $w" >&2; exit 1; }
done
ingero help demo | cmp - a.txt
