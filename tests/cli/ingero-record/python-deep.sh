# SPDX-License-Identifier: MIT
# A Python stack deeper than a pystack holds (32 frames): the innermost 32
# are kept, innermost first, and the cut is counted (loss source
# "pystack-depth"); a stack that fits is not counted.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
find_pythons
cat >deep.py <<'PY'
import ctypes, os, sys, time
lib = ctypes.CDLL(sys.argv[1])
with open("ready.tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename("ready.tmp", "ready")
while not os.path.exists("go"):
    time.sleep(0.01)
def down(d):
    if d:
        return down(d - 1)  # line 10
    lib.cudaDeviceSynchronize()  # line 11
down(int(sys.argv[2]))
lib.cudaFree(None)  # line 13
time.sleep(0.2)
PY
py=${PYS[0]#*:}
start_py py.out "$py" deep.py "$FAKE/libcudart.so.13" 60
ppid=$PYPID
wait_for ready
start_rec --pid "$ppid"
touch go
wait "$ppid" || fail "$py deep.py failed: $(cat py.out)"
stop_rec
export_log
assert_eq "frames" "$(PYSRC=deep.py py_calls | sort)" "1 cudaDeviceSynchronize | main | down:11$(printf ' < down:10%.0s' {1..31})
1 cudaFree | main | <module>:13"
assert_eq "depth loss" \
	"$(last_loss pystack-depth '[.lost, .seen]')" \
	"[1,2]"
