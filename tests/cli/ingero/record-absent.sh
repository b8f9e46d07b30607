# SPDX-License-Identifier: MIT
# `ingero record` where ingero-record is neither next to ingero nor on PATH:
# exit 2 and a message saying it is not installed (not "unknown command").
mkdir bin
cp "$INGERO_BIN/ingero" bin/
PATH=/usr/bin:/bin bin/ingero record --duration 1s -o x.ilog
