# recorded for real: 2 GiB of device memory allocated and freed again, and
# 64 MiB per step freed at its end: outstanding memory that is returned is
# no leak, and nothing runs out.  Other chains are not judged: on a loaded
# machine the host may really slow it
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/scenarios/check.sh"
ingero demo --bpf -q gpu-spike -o run.ilog >out.txt || { cat out.txt >&2; exit 1; }
no_pattern run.ilog gpu-memory-leak || exit 1
no_pattern run.ilog gpu-oom
