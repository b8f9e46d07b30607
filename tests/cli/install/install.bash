# SPDX-License-Identifier: MIT
# Shared by the cases of tests/cli/install/ (sourced): `make install` and
# `make deb` from the tree under test, reusing its build (INGERO_OUT,
# INGERO_BIN) without remaking it, with generated files in the case's
# directory.
root=$(dirname "$INGERO_TESTS")
progs=$(cd "$root/cmd" && ls -d ingero*)
unset MAKEFLAGS MFLAGS MAKELEVEL
# the built programs and fake CUDA files are taken as they are (make -o)
keep=()
for f in "$INGERO_BIN"/ingero* "$INGERO_OUT"/tests/fakecuda/*; do keep+=(-o "$f"); done

# mk TARGET VAR=VALUE...: make in the source tree on the built tree
mk() {
	make -s -C "$root" OUT="$INGERO_OUT" BIN="$INGERO_BIN" INST_GEN="$PWD/gen" \
		DEB_WORK="$PWD/debwork" "${keep[@]}" "$@"
}

# help_options PROG: the options PROG --help lists (the first column of
# its option lines), read here without docs/man/gen.py
help_options() {
	"$INGERO_BIN/$1" --help | grep -E '^ {1,8}-' | sed -E 's/^ +//; s/  .*//' |
		grep -oE '(^|[ ,])--?[A-Za-z0-9][A-Za-z0-9-]*' | sed 's/^[ ,]*//' | sort -u
}

# export_formats: the format names of ingero-export --help's --format table
export_formats() {
	"$INGERO_BIN/ingero-export" --help | sed -n '/^ *-f, --format/,/^ \{1,8\}-/p' |
		grep -E '^ {20,}[a-z][a-z0-9-]* ' | sed -E 's/^ +//; s/ .*//'
}

# has TEXT WORD: WORD occurs in TEXT as a whole option
has() {
	grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|$)" <<<"$1"
}

# complete_words FILE WORD...: what FILE's bash completion offers for the
# command line WORD... (the last word is the one being completed)
complete_words() {
	local file=$1
	shift
	bash -c 'source "$1" || exit 1; shift
		fn=$(complete -p "$1" | sed -n "s/.*-F \([^ ]*\) .*/\1/p")
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}"' complete "$file" "$@"
}

# recorder CMD...: run CMD in a mount namespace where the build tree's
# fake CUDA libraries are not there (root); the group runs alone
# (EXCLUSIVE), so no other recorder runs beside it
recorder() {
	unshare -m bash -c \
		'mount -t tmpfs none "$INGERO_OUT/tests/fakecuda" && exec "$@"' recorder "$@"
}
