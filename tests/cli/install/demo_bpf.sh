# recorded for real from the installed tree: the installed ingero-demo finds
# the fake CUDA libraries in ../libexec/ingero, with the build tree's hidden
# (a mount namespace puts an empty directory over them) and
# INGERO_FAKECUDA_DIR naming nothing, records with the installed
# ingero-record and ranks the staged cpu-contention first
[ "$(id -u)" = 0 ] || { echo "needs root for eBPF (CI runs it)" >&2; exit 77; }
. "$INGERO_TESTS/cli/install/install.bash"
mk install DESTDIR="$PWD/dest" PREFIX=/usr >install.log 2>&1 || { cat install.log >&2; exit 1; }
INGERO_FAKECUDA_DIR=$PWD/nowhere recorder \
	"$PWD/dest/usr/bin/ingero" demo --bpf --check -q incident -o run.ilog >out.txt 2>err.txt ||
	{ cat out.txt err.txt >&2; exit 1; }
grep -q '^demo check: staged cpu-contention; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
# the log is of the installed recorder's recording of the workload
"$INGERO_BIN/ingero-export" -t cuda run.ilog | head -n 1 | grep -q '"op":"cuda' || { echo "no cuda events" >&2; exit 1; }
