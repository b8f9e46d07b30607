# SPDX-License-Identifier: MIT
# `ingero record` where ingero-record is neither next to ingero nor on PATH:
# exit 2 and a message saying it is not installed (not "unknown command").
# PATH is an empty directory: an ingero installed on the machine (say in
# /usr/bin) must not be found either
mkdir bin empty
cp "$INGERO_BIN/ingero" bin/
PATH=$PWD/empty bin/ingero record --duration 1s -o x.ilog
