# SPDX-License-Identifier: MIT
# A log cut inside a frame: exit 2, every record of the complete frames
# printed, one stderr line naming the offset where the damage starts.
set -euo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 2000 --stacks 20 --frame-records 200 -o full.ilog
ingero-export full.ilog >full.jsonl
size=$(stat -c %s full.ilog)

# Where frames start: cut just before the end, the error names the start
# of the frame the cut fell in.
frame_start() { # $1 = cut length
	head -c "$1" full.ilog | ingero-export >/dev/null 2>err.txt || true
	sed -nE 's/.*: offset ([0-9]+): .*/\1/p' err.txt
}
f3=$(frame_start $((size - 10)))
f2=$(frame_start $((f3 - 10)))
f1=$(frame_start $((f2 - 10)))

head -c $((size - 10)) full.ilog >cut.ilog
rc=0
ingero-export cut.ilog >cut.jsonl 2>cut.err || rc=$?
echo "exit $rc, $(wc -l <cut.err) stderr line"
sed -E "s/offset $f3:/offset LAST_FRAME:/; s/after [0-9]+ bytes/after N bytes/" cut.err
n=$(wc -l <cut.jsonl)
echo "records $n of $(wc -l <full.jsonl)"
head -n "$n" full.jsonl | cmp - cut.jsonl
# the bytes before the offset are a whole log with exactly those records
head -c "$f3" full.ilog | ingero-export | cmp - cut.jsonl

# Cuts all through the last three frames: each frame start and the bytes
# either side of it, and a stride that lands about 120 cuts everywhere
# else (an odd stride, so the cuts fall at every phase of a record).
stride=$(((size - f1) / 120 | 1))
cuts=$( { for f in $f1 $f2 $f3; do echo $((f - 1)); echo $f; echo $((f + 1)); done
	  echo $((size - 1))
	  for ((cut = f1; cut < size; cut += stride)); do echo $cut; done; } | sort -nu)
checked=0
for cut in $cuts; do
	((cut >= f1 - 1 && cut < size)) || continue
	rc=0
	head -c "$cut" full.ilog | ingero-export >part.jsonl 2>part.err || rc=$?
	n=$(wc -l <part.jsonl)
	head -n "$n" full.jsonl | cmp -s - part.jsonl || { echo "cut $cut: not a prefix"; exit 1; }
	if ((cut == f1 || cut == f2 || cut == f3)); then
		[[ $rc == 0 && ! -s part.err ]] || { echo "cut $cut at a frame start: exit $rc"; exit 1; }
	elif ((cut == f1 - 1)); then
		# inside the frame before the last three: its start is the offset
		[[ $rc == 2 && $(wc -l <part.err) == 1 ]] || { echo "cut $cut: exit $rc"; exit 1; }
	else
		[[ $rc == 2 && $(wc -l <part.err) == 1 ]] || { echo "cut $cut: exit $rc"; exit 1; }
		off=$(sed -nE 's/.*: offset ([0-9]+): .*/\1/p' part.err)
		((off == f1 || off == f2 || off == f3)) && ((off <= cut)) ||
			{ echo "cut $cut: offset $off"; exit 1; }
		# whole frames only: what was printed is what the offset's prefix holds
		head -c "$off" full.ilog | ingero-export | cmp -s - part.jsonl ||
			{ echo "cut $cut: records beyond $off"; exit 1; }
	fi
	checked=$((checked + 1))
done
((checked > 100))
echo "cuts through the last 3 frames: all consistent"
