# SPDX-License-Identifier: MIT
# The log goes out frame by frame: an input frame is copied byte for byte,
# the symbols of a frame's new ips come in a frame of their own right
# before it (symbol records only), and a frame that must change inside (a
# header before its new ips, in the first frame of a log from a writer
# that did not end it after the header) is written anew with the symbols
# before the stacks.
# A frame too big to take its symbols (32 MiB, the writer's largest) makes
# every record be written anew instead: the same records, the same frames
# rendered.  A merged log (node records)
# and a frame cut by a bad record come out right too.
. "$INGERO_TESTS/symbolize/common.sh"
frames=$symdir/ilogframes
exact=$INGERO_TESTS/cli/ingero-symbolize/frames.stdout.exact
record node-a
"$frames" split 4 node-a/run.ilog split.ilog || exit 1
ingero-symbolize split.ilog -o sym.ilog || exit 1
"$frames" list split.ilog >in.txt
"$frames" list sym.ilog >out.txt
(($(wc -l <in.txt) > 10)) && echo "input: more than 10 frames of 4 records"
awk 'NR == FNR { h[$1] = 1; next } $1 in h' in.txt out.txt | cmp - in.txt &&
	echo "output: every input frame, byte for byte, in order"
awk 'NR == FNR { h[$1] = 1; next } !($1 in h) { print $2 }' in.txt out.txt | sed 's/\*.*//' |
	sort | uniq -c | sed 's/^ *[0-9]* /frames added: /'
awk 'NR == FNR { h[$1] = 1; next } { print (($1 in h) ? "in" : "added"), $0 }' in.txt out.txt |
	awk '$1 == "added" { want = 1; next } want && !/ stack/ { bad++ } { want = 0 }
		END { print "each added frame before a frame with stacks: " (bad ? "no" : "yes") }'
render sym.ilog | cmp - "$exact" && echo "frames rendered: as from the whole log"
ingero-symbolize sym.ilog -o again.ilog && cmp sym.ilog again.ilog &&
	echo "second run: the same bytes"
ingero-symbolize --redo sym.ilog -o redo.ilog && cmp sym.ilog redo.ilog &&
	echo "--redo: the same bytes"
ingero-symbolize --threads 1 split.ilog -o t1.ilog && ingero-symbolize --threads 2 split.ilog -o t2.ilog &&
	cmp sym.ilog t1.ilog && cmp sym.ilog t2.ilog && echo "--threads 1, --threads 2: the same bytes"

# header and events in one frame (as earlier writers wrote)
"$frames" join node-a/run.ilog one.ilog || exit 1
ingero-symbolize one.ilog -o whole.ilog || exit 1
"$frames" list one.ilog | cut -d' ' -f2- | sed 's/\*[0-9]*/*N/g; s/^/one-frame input: /'
"$frames" list whole.ilog | cut -d' ' -f2- |
	sed -E 's/symbol(\*[0-9]+)?/symbols/g; s/\*[0-9]+/*N/g; s/^/written anew: /'

"$frames" grow 33 node-a/run.ilog big.ilog || exit 1
ingero-symbolize big.ilog -o bigsym.ilog || exit 1
"$frames" list big.ilog | cut -d' ' -f2- | sed 's/[0-9][0-9]*/N/g; s/^/big input: /'
n=$("$frames" list bigsym.ilog | wc -l)
((n > 30)) && echo "big output: every record written anew, in frames of 1 MiB"
# the first stacks are the recorded ones (head stops the export early)
{ ingero-export -t stack bigsym.ilog 2>/dev/null || true; } | head -n "$(wc -l <paths.txt)" |
	render_stacks | cmp - "$exact" && echo "big output: frames rendered as from the small log"
ingero-export bigsym.ilog | jq -c 'select(.type != "symbol") | del(.frames)' >out.jsonl
ingero-export big.ilog | cmp - out.jsonl && echo "big output: input records all there, unchanged, in order"

# two nodes merged: node records in every frame, so every frame with new
# ips is written anew; each stack still finds all its ips' frames
synth=$INGERO_OUT/tests/tools/synth
"$synth" -o n1.ilog --events 2000 --stacks 50 --node n1 --seed 1 --frame-records 300 || exit 1
"$synth" -o n2.ilog --events 2000 --stacks 50 --node n2 --seed 2 --frame-records 300 || exit 1
ingero-merge n1.ilog n2.ilog -o merged.ilog 2>/dev/null || exit 1
ingero-symbolize --no-system-debug merged.ilog -o msym.ilog 2>/dev/null || exit 1
kinds=$(ingero-export merged.ilog | jq -r .type | sort -u | grep -v '^stack$' | paste -sd,)
ingero-export -t "$kinds" merged.ilog | cmp - <(ingero-export -t "$kinds" msym.ilog) &&
	ingero-export -t stack merged.ilog | cmp - <(ingero-export -t stack msym.ilog | jq -c 'del(.frames)') &&
	echo "merged: input records all there, unchanged, in order"
ingero-export -t stack msym.ilog | jq -r '.node_index // 0' | sort -u | paste -sd' ' |
	sed 's/^/merged: stacks of nodes /'
ingero-export -t stack msym.ilog |
	jq -r 'select(((.frames // []) | map(.ip) | unique) != (.ips | unique)) | .id' | wc -l |
	sed 's/^/merged: stacks with an ip and no frames for it: /'

# a record that does not decode, inside a frame: the frame is cut there
ingero-symbolize "$INGERO_TESTS/vectors/bad-record.ilog" -o bad.ilog 2>/dev/null
echo "damaged record: exit $?"
ingero-export bad.ilog | cmp - <(ingero-export "$INGERO_TESTS/vectors/bad-record.ilog" 2>/dev/null) &&
	echo "damaged record: the records before it, as the input reads"
