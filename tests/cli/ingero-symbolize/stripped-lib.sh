# SPDX-License-Identifier: MIT
# A library stripped to .dynsym, no debug info anywhere: its exported
# function keeps its name; code of a local function laid out after it is
# libsymtest.so+offset, never "symlib_entry+N" (the nearest symbol before
# it, whose size ends before the address).
. "$INGERO_TESTS/symbolize/common.sh"
record node-a
strip --strip-all node-a/libsymtest.so
ingero-symbolize -v --no-system-debug node-a/run.ilog -o sym.ilog 2>err.txt || exit 1
grep "libsymtest" err.txt | sed "s|$PWD/||"
render sym.ilog | sed -n '/^== lib_hidden/,/^== /p'
ingero-export -t stack sym.ilog | jq -c 'select(.frames) | .frames[]
	| select(.module | endswith("/libsymtest.so")) | {symbol, offset: (.offset | type), file, line}' | sort -u
# the unnamed frame lies past symlib_entry's end in the file
read -r value size < <(readelf -W --dyn-syms node-a/libsymtest.so | awk '$8 == "symlib_entry" { print $2, $3 }')
off=$(ingero-export -t stack sym.ilog | jq -r '.frames // [] | .[]
	| select((.module | endswith("/libsymtest.so")) and .symbol == null) | .module_off' | head -n1)
((off >= 0x$value + size)) && echo "the unnamed frame lies past the end of symlib_entry, the symbol before it"
