# SPDX-License-Identifier: MIT
# CPython frames (issue 4): pytrain.py calls the fake CUDA runtime through
# ctypes from known lines -- in a method, in the function calling it,
# called back from C (map), from a second thread, from a forked child -- under every CPython 3.10-3.13 on
# the machine: pyenv's (libpython3.N.so) and Debian's static python3.11.
# The real recorder walks the frames in the kernel; ingero-export resolves
# them offline from the pycode records.  Each call must come out with the
# right file, function (qualified name from 3.11 on) and line for every
# frame, innermost first, and nothing may be lost.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-record/pycommon.bash"
need_bpf
find_pythons

L_malloc=$(pyline malloc) L_free=$(pyline free) L_step=$(pyline step) L_sync=$(pyline sync)
L_worker=$(pyline worker) L_child=$(pyline child) L_loop=$(pyline loop) L_fork=$(pyline fork)
L_module=$(pyline module) L_viac=$(pyline viac) L_map=$(pyline map)

check_one() {
	local py=$1 minor fwd th
	minor=$("$py" -c 'import sys; print(sys.version_info[1])')
	# 3.10 code objects have no co_qualname: the plain name is all there is
	fwd=Model.forward th=Thread.
	if [[ $minor == 10 ]]; then
		fwd=forward th=
	fi
	record_python "$py" -v

	local top="main:$L_loop < <module>:$L_module"
	{
		echo "3 cudaMalloc | main | $fwd:$L_malloc < step:$L_step < $top"
		echo "3 cudaFree | main | $fwd:$L_free < step:$L_step < $top"
		echo "3 cudaDeviceSynchronize | main | step:$L_sync < $top"
		echo "1 cudaMemset | main | via_c:$L_viac < main:$L_map < <module>:$L_module"
		echo "1 cudaStreamSynchronize | thread | worker:$L_worker < threading.py:${th}run" \
			"< threading.py:${th}_bootstrap_inner < threading.py:${th}_bootstrap"
		echo "1 cudaEventSynchronize | child | child_step:$L_child < main:$L_fork < <module>:$L_module"
	} | sort >want
	py_calls | sort >got
	diff -u want got >&2 || fail "$py: python stacks differ (- want, + got)"

	# the pycode records say which interpreter compiled them
	assert_eq "$py: py_version" \
		"$(jq -s -c '[.[] | select(.type=="pycode") | .py_version] | unique' log.jsonl)" \
		"[\"$(printf '0x3%02x' "$minor")\"]"
	# both ways an interpreter can be linked were really exercised
	local libpy
	libpy=$(jq -s "[.[] | select(.type==\"mapping\" and .pid==$ppid and
		(.path | test(\"/libpython3[.]$minor[.]so\")))] | length" log.jsonl)
	case $py in
	/usr/bin/*) assert_eq "$py: libpython mappings (static interpreter)" "$libpy" 0 ;;
	*) [[ $libpy -gt 0 ]] || fail "$py: no libpython3.$minor.so mapping" ;;
	esac
	grep -q "CPython 3.$minor in " rec.err || fail "$py: interpreter not reported found"
	for src in pystacks pycode; do
		assert_eq "$py: $src lost" \
			"$(jq -s "[.[] | select(.type==\"loss\" and .source==\"$src\")] | last | .lost" log.jsonl)" 0
	done
}

for entry in "${PYS[@]}"; do
	label=${entry%%:*}
	mkdir "$label"
	(cd "$label" && check_one "${entry#*:}") || exit 1
done
