# SPDX-License-Identifier: MIT
# The golden broken logs (tests/data/README.md): each gives exit 2, every
# record before the damage, and one error line with the offset.
set -uo pipefail
data=$INGERO_TESTS/data
cp "$data"/*.ilog "$data"/not-a-log.txt .
: >empty.ilog
mkdir dir.ilog
try() {
	local rc=0
	ingero-export "$@" >out.jsonl 2>err.txt || rc=$?
	echo "[$*] exit $rc, $(wc -l <out.jsonl) records"
	sed 's/^/  /' err.txt
}
try training.ilog
for f in truncated garbage-tail future-major bad-record huge-string; do
	try $f.ilog
done
try not-a-log.txt
try empty.ilog
try dir.ilog
try - <not-a-log.txt
# a bad input among good ones: the others are still read, exit 2 at the end
try training.ilog not-a-log.txt truncated.ilog training.ilog
# records before the damage are the good log's own
{ ingero-export truncated.ilog 2>/dev/null || true; } | cmp - <(ingero-export training.ilog | head -n 3000) &&
	echo "truncated.ilog: its 3000 records are training.ilog's first 3000"
