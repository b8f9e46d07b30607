# lib/'s and cmd/'s layering (lib/README.md): the real tree passes; copies
# of lib/ and cmd/ with one violation each -- a sibling's internal header, a
# public header of a layer the folder may not use or the program does not
# link, a program reaching into lib/, an unprefixed global -- are caught.
root=$(dirname "$INGERO_TESTS")
check=$INGERO_TESTS/cli/layout/check_layers.py
python3 "$check" "$root" "$INGERO_OUT/lib" && echo "tree: ok"

copy() {
	rm -rf t && mkdir t && cp -r "$root/lib" "$root/cmd" t/
}
copy
sed -i '1a #include "../analyze/stats_int.h"' t/lib/merge/merge.c
python3 "$check" t || echo "sibling internal header: refused"
copy
sed -i '1a #include "ingero/export.h"' t/lib/codec/reader.c
python3 "$check" t || echo "layer above: refused"
copy
sed -i '1a #include "ingero/cli.h"' t/lib/analyze/gate.c
python3 "$check" t || echo "printing layer from analyze: refused"
copy
sed -i '1a #include "ingero/export.h"' t/cmd/ingero-merge/main.c
python3 "$check" t || echo "program including a layer it does not link: refused"
copy
sed -i '1a #include "../../lib/analyze/stats_int.h"' t/cmd/ingero-correlate/main.c
python3 "$check" t || echo "program including lib/'s internal header: refused"
copy
printf '#include "ingero/nope.h"\n' > t/lib/include/ingero/nope.h
python3 "$check" t || echo "undocumented public header: refused"
mkdir -p t/arch && cp "$INGERO_OUT"/lib/*.a t/arch/
printf 'int helper_count;\n' > g.c && cc -c -o g.o g.c && ar rs t/arch/libingero_merge.a g.o 2>/dev/null
python3 "$check" "$root" t/arch | sed "s/: [0-9]* objects for [0-9]* sources/: M objects for N sources/"
