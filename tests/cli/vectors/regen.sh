# SPDX-License-Identifier: MIT
# The committed vectors are what the writer writes today: mkvectors (the
# generator, tests/tools/mkvectors.c) run again gives the same records,
# byte for byte and annotation for annotation (format/SPEC.md §11).  A
# difference means the wire format changed: regenerate with
# tests/vectors/regen.sh, review the diff, and record it in SPEC.md §12.
set -u
"$INGERO_OUT/tests/tools/mkvectors" -o . || exit 1
fails=0 n=0
for hex in *.hex; do
	n=$((n + 1))
	if ! cmp -s "$hex" "$INGERO_TESTS/vectors/$hex"; then
		echo "$hex: differs from tests/vectors/$hex" >&2
		diff "$INGERO_TESTS/vectors/$hex" "$hex" | head -10 >&2
		fails=$((fails + 1))
	fi
done
for hex in "$INGERO_TESTS"/vectors/*.hex; do
	[[ -e $(basename "$hex") ]] || { echo "$hex: mkvectors no longer makes it" >&2; fails=$((fails + 1)); }
done
((n >= 8 && fails == 0))
