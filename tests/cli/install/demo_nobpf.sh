# the installed ingero (make install DESTDIR=... PREFIX=/usr) runs the demo:
# `ingero demo` finds ingero-demo beside it and explains the synthesized incident
. "$INGERO_TESTS/cli/install/install.bash"
mk install DESTDIR="$PWD/dest" PREFIX=/usr >install.log 2>&1 || { cat install.log >&2; exit 1; }
env -u INGERO_FAKECUDA_DIR PATH="$PWD/dest/usr/bin:/usr/bin:/bin" \
	ingero demo --no-bpf --check incident >out.txt 2>err.txt || { cat out.txt err.txt >&2; exit 1; }
grep -q '^demo check: staged cpu-contention; ingero ranked it first$' out.txt || { cat out.txt >&2; exit 1; }
