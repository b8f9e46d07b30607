# SPDX-License-Identifier: MIT
# Every bad option: exit 2, nothing on stdout, a message naming what is wrong.
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 10 -o ok.ilog
try() {
	local rc=0
	ingero-export "$@" >out.txt 2>err.txt || rc=$?
	echo "[$*] exit $rc, stdout $(wc -c <out.txt) bytes"
	sed 's/^/  /' err.txt
}
try --format nope ok.ilog
try -f '' ok.ilog
try --type nope ok.ilog
try --type cuda,,host ok.ilog
try -t CUDA ok.ilog
try --pid 0 ok.ilog
try --pid abc ok.ilog
try -p -5 ok.ilog
try --pid 4294967296 ok.ilog
try --pid '' ok.ilog
try --since yesterday ok.ilog
try --until 2026-02-30 ok.ilog
try --since +5x ok.ilog
try --since @ ok.ilog
try --until '' ok.ilog
try --bogus ok.ilog
try ok.ilog -t
try missing.ilog
try -o no/such/dir/out.jsonl ok.ilog
