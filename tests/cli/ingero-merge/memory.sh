# SPDX-License-Identifier: MIT
# Merge memory does not grow with the logs: merging 4 ranks of 8x more
# events may add at most what the design keeps (the collective points,
# 65536 x 32 bytes per node, lib/merge/merge.c MAX_POINTS) plus 1 byte per extra
# event (anything kept per event costs far more: a record is 40+ bytes).
# bench/merge measures the real sizes (4 x 5M events).
set -euo pipefail
command -v /usr/bin/time >/dev/null || { echo "/usr/bin/time not found (Debian time)" >&2; exit 77; }
# under AddressSanitizer, freed memory waits in a quarantine that counts as
# resident: it is the sanitizer's, not the merge's
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
rss() { # max RSS in KB of a merge of rank*.ilog in $1
	/usr/bin/time -f '%M' -o rss.txt ingero-merge -q --align "$1"/rank0.ilog "$1"/rank1.ilog \
		"$1"/rank2.ilog "$1"/rank3.ilog -o "$1"/job.ilog
	cat rss.txt
}
mkdir small big
"$INGERO_OUT"/tests/tools/ranks -o small/rank --ranks 4 --skews 0,+3ms,-7ms,+40ms --steps 2000
"$INGERO_OUT"/tests/tools/ranks -o big/rank --ranks 4 --skews 0,+3ms,-7ms,+40ms --steps 16000
a=$(rss small)
b=$(rss big)
n_small=$(ingero-export -t cuda small/job.ilog | wc -l)
n_big=$(ingero-export -t cuda big/job.ilog | wc -l)
allow=$(((4 * 65536 * 32 + (n_big - n_small)) / 1024))
echo "events: $n_small and $n_big ($((n_big / n_small))x)"
if ((b - a <= allow)); then
	echo "max RSS grows by at most the bounded structures ($allow KB)"
else
	echo "max RSS grew from $a KB to $b KB, more than $allow KB"
fi
