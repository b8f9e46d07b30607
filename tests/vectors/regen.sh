#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Regenerate the format test vectors (format/SPEC.md §11) from the real code:
#   tests/vectors/regen.sh [OUT]      (OUT: a build dir, default .output)
# mkvectors writes NAME.ilog and NAME.hex with lib/codec/writer.c; NAME.jsonl and
# NAME.stderr are what `ingero-export --format jsonl NAME.ilog` prints when
# run in this directory (so error lines name the file NAME.ilog).  Only the
# files of the vectors mkvectors makes are replaced.  Review the result
# (git diff tests/vectors), then update the blocks format/SPEC.md shows:
# tests/unit/vectors.c compares them with these files.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$(cd "${1:-$here/../../.output}" && pwd)
bin=$(cd "${INGERO_BIN:-$out/bin}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$out/tests/tools/mkvectors" -o "$tmp"
cd "$tmp"
for log in *.ilog; do
	name=${log%.ilog}
	rc=0
	"$bin/ingero-export" --format jsonl "$log" >"$name.jsonl" 2>"$name.stderr" || rc=$?
	if [[ -s $name.stderr ]]; then
		[[ $rc == 2 ]] || { echo "regen: $log: exit $rc with errors" >&2; exit 1; }
	else
		[[ $rc == 0 ]] || { echo "regen: $log: exit $rc" >&2; exit 1; }
		rm -f "$name.stderr"
	fi
	rm -f "$here/$name".{ilog,hex,jsonl,stderr}
	cp "$name".* "$here/"
	echo "$name"
done
