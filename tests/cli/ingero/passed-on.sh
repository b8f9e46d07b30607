# SPDX-License-Identifier: MIT
# `ingero -q|-v|-vv|--quiet|--verbose COMMAND ARGS`: those options go to
# the command, before its own arguments, in order.
set -u
mkdir bin
cp "$INGERO_BIN/ingero" bin/
printf '#!/bin/sh\nfor a in "$@"; do printf "[%%s]" "$a"; done; echo\n' >bin/ingero-foo
chmod +x bin/ingero-foo
bin/ingero -q foo a
bin/ingero -v -vv --verbose foo -o x.ilog
bin/ingero --quiet foo
bin/ingero -v help foo
rc=0
bin/ingero -v 2>/dev/null || rc=$?
echo "no command: exit $rc"
