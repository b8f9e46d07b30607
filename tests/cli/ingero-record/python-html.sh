# SPDX-License-Identifier: MIT
# The HTML report's call-path icicles show Python frames where the calls
# have them: pytrain.py recorded for real (ctypes calls of the fake CUDA
# runtime), ingero-correlate --html on the log: the icicle of cudaMalloc has
# the frames Model.forward and step at their marked lines, drawn as Python
# frames (class "py"), under <module> and main.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
find_pythons
record_python "${PYS[0]#*:}"
ingero-correlate --html page.html rec.ilog || fail "ingero-correlate --html failed"
ice=$(grep -o '<div class="icicle" data-op="cudaMalloc".*' page.html | head -1)
[[ $ice ]] || fail "no icicle for cudaMalloc"
for want in "forward (pytrain.py:$(pyline malloc))" "step (pytrain.py:$(pyline step))" \
	"main (pytrain.py:$(pyline loop))" "&lt;module&gt; (pytrain.py:$(pyline module))"; do
	grep -qF "<div class=\"py\" " <<<"$ice" || fail "no Python frame drawn"
	grep -qF ">$want</div>" <<<"$ice" || fail "icicle of cudaMalloc lacks '$want': $(grep -o '>[^<]*</div>' <<<"$ice" | head -20 | tr '\n' ' ')"
done
