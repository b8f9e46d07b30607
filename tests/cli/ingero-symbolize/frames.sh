# SPDX-License-Identifier: MIT
# Known call paths of a real -g program (C, C++ templates, inline functions,
# a shared library) symbolize to the right functions and lines, C++ names
# demangled, inlined frames shown, ending at main.
. "$INGERO_TESTS/symbolize/common.sh"
record node-a
ingero-symbolize node-a/run.ilog -o sym.ilog || exit 1
render sym.ilog
