# SPDX-License-Identifier: MIT
# `ingero foo ARGS` execs ingero-foo from ingero's own directory (before
# PATH), passing ARGS unchanged and returning its exit status.
set -uo pipefail
mkdir -p bin other
cp "$INGERO_BIN/ingero" bin/
printf '#!/bin/sh\necho "next to ingero: $0"\nfor a in "$@"; do echo "arg [$a]"; done\nexit 3\n' >bin/ingero-foo
printf '#!/bin/sh\necho "from PATH"\n' >other/ingero-foo
printf '#!/bin/sh\necho "bar from PATH: $*"\n' >other/ingero-bar
chmod +x bin/ingero-foo other/ingero-foo other/ingero-bar
rc=0
PATH=$PWD/other:/usr/bin:/bin bin/ingero foo 'a b' '' --x=1 >out.txt || rc=$?
sed "s|$PWD/||" out.txt
echo "exit $rc"
PATH=$PWD/other:/usr/bin:/bin bin/ingero bar 1 2
# the real thing: `ingero export` is ingero-export
ingero export --help | cmp - <(ingero-export --help) && echo "ingero export --help = ingero-export --help"
ingero help export | cmp - <(ingero-export --help) && echo "ingero help export = ingero-export --help"
