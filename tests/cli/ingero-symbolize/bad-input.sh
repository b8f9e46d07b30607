# SPDX-License-Identifier: MIT
# Bad inputs: a mapped file that is gone, one that is not ELF, a truncated
# ELF, DWARF that does not parse: one warning per module however many
# stacks use it, its frames left as module+offset (or named from the
# symbol table), everything else still symbolized.  A damaged log: exit 2,
# the records before the damage still written.  Two threads say and write
# the same as one.
. "$INGERO_TESTS/symbolize/common.sh"
clean() { sed "s|$PWD/||; s/[0-9a-f]\{40\}/<build-id>/g"; }
case_() {
	echo "-- $1"
	ingero-symbolize --no-system-debug --threads 1 node-a/run.ilog -o sym.ilog 2>err.txt
	echo "exit $?"
	clean <err.txt
	render sym.ilog | sed -n '/^== c_inline/,/^== c_static/p; /^== lib_hidden/,$p' | grep -v '^== c_static'
	# two resolvers share the modules out: the same bytes, the same
	# warnings in the same order
	ingero-symbolize --no-system-debug --threads 2 node-a/run.ilog -o sym2.ilog 2>err2.txt
	cmp -s sym.ilog sym2.ilog && cmp -s err.txt err2.txt && echo "--threads 2: the same"
}
record node-a
cp node-a/symtest node-a/libsymtest.so .

rm node-a/libsymtest.so
case_ "library gone"
echo "not an ELF file" >node-a/libsymtest.so
case_ "library not ELF"
cp libsymtest.so node-a/
head -c 3000 symtest >node-a/symtest
case_ "program truncated"

cp symtest node-a/
# 0xff over .debug_info after the first unit's header
off=$((16#$(readelf -S -W node-a/symtest | sed -n 's/.*\] \.debug_info *[A-Z]* *[0-9a-f]* \([0-9a-f]*\).*/\1/p')))
head -c 512 /dev/zero | tr '\0' '\377' | dd of=node-a/symtest bs=1 seek=$((off + 11)) conv=notrunc status=none
case_ "program's DWARF damaged"

cp symtest node-a/
# two logs back to back (a valid log), the second cut short
size=$(stat -c %s node-a/run.ilog)
cat node-a/run.ilog node-a/run.ilog | head -c $((2 * size - 40)) >cut.ilog
echo "-- log cut short"
ingero-symbolize cut.ilog -o sym.ilog 2>err.txt
echo "exit $?"
clean <err.txt | sed 's/[0-9][0-9]*/N/g'
n=$(ingero-export sym.ilog 2>/dev/null | wc -l)
m=$(ingero-export cut.ilog 2>/dev/null | wc -l)
((n > m && m > 0)) && echo "records before the damage written, with symbols added"
