# SPDX-License-Identifier: MIT
# Sourced by the cases that load traces in Perfetto's own trace processor:
# sets tp to trace_processor_shell, from ../shared/tools beside the
# repository or from PATH.  Missing: a skip (exit 77) outside CI, a failure
# in CI, which must run every case.
tp=$INGERO_TESTS/../../shared/tools/trace_processor_shell
[[ -x $tp ]] || tp=$(command -v trace_processor_shell) || {
	echo "trace_processor_shell not found (neither in ../shared/tools nor on PATH)" >&2
	[[ ${CI:-} == true ]] && exit 1
	exit 77
}
