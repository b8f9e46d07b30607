# SPDX-License-Identifier: MIT
# Python frames offline: stacks taken from real interpreters running
# train_loop.py (code object address + instruction offset per frame, and
# each code object's co_linetable, as the recorder writes them) render in
# ingero-export as py_file/py_func/py_line equal to the interpreter's own
# f_lineno, for every CPython found (python3, python3.1x, pyenv's); a code
# object replaced at the same address resolves as the new one, an unknown
# one as nulls.
. "$INGERO_TESTS/symbolize/common.sh"
pylog=$INGERO_OUT/tests/tools/pylog
declare -A seen
found=0
for py in python3 python3.10 python3.11 python3.12 python3.13 "$HOME"/.pyenv/versions/3.1[0-3]*/bin/python3; do
	command -v "$py" >/dev/null 2>&1 || continue
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || continue
	case $v in 3.1[0-3]) ;; *) continue ;; esac
	[[ -z ${seen[$v]:-} ]] || continue
	seen[$v]=1
	"$py" "$src/pyframes.py" desc.txt expect.txt || exit 1
	"$pylog" -o py-$v.ilog <desc.txt || exit 1
	ingero-export -t pystack py-$v.ilog |
		jq -r '(.py_frames[] | [.py_file, .py_func, .py_line] | map(tostring) | join("\t")), "--"' >got.txt
	if cmp -s got.txt expect.txt; then
		echo "python $v: $(grep -vc -- -- got.txt) frames match f_lineno" >&2
		found=$((found + 1))
		[[ -f first.txt ]] || cp got.txt first.txt
	else
		echo "python $v: frames differ:" >&2
		diff expect.txt got.txt >&2
		exit 1
	fi
done
((found)) || { echo "no CPython 3.10-3.13 found (tests/deps.txt has python3)" >&2; exit 77; }
echo "every interpreter found: py_frames match its own line numbers"
# stack 1 and 2 in train_loop.py, lines by marker, names without the class
markers >markers.txt
awk -F'\t' 'NR == FNR { split($0, a, " "); m[a[1]] = a[2]; next }
	!open { n++; print "== stack " n; open = 1 }
	/^--$/ { open = 0; next }
	$1 == "null" { print "? ?:?"; next }
	$1 ~ /train_loop\.py$/ { k = "train_loop.py:" $3; f = $2; sub(/.*\./, "", f)
		print f " train_loop.py:" ((k in m) ? m[k] : $3) }' markers.txt first.txt
