# SPDX-License-Identifier: MIT
# A filter: every input record comes out unchanged and in order, symbol
# records come before the stacks that use them, and running it again on
# its own output adds nothing; --redo replaces the symbols it finds.
. "$INGERO_TESTS/symbolize/common.sh"
record node-a
ingero-symbolize node-a/run.ilog -o once.ilog || exit 1
ingero-export node-a/run.ilog >in.jsonl
ingero-export once.ilog >once.jsonl
jq -c 'select(.type != "symbol") | del(.frames)' once.jsonl | cmp - in.jsonl &&
	echo "input records: all there, unchanged, in order"
echo "symbol records added: $(jq -c 'select(.type == "symbol")' once.jsonl | wc -l)" |
	sed 's/: [1-9][0-9]*$/: some/'
# each stack's ips all have symbols earlier in the stream
jq -n -r 'reduce inputs as $r ({seen: {}, bad: 0};
		if $r.type == "symbol" then .seen["\($r.pid) \($r.ip)"] = true
		elif $r.type == "stack" then
			. as $s | .bad += ([$r.ips[] | select($s.seen["\($r.pid) \(.)"] | not)] | length)
		else . end) | "ips of stacks without symbols before them: \(.bad)"' once.jsonl
jq -r 'select(.type == "symbol") | "\(.pid) \(.ip) \(.inline_depth)"' once.jsonl | sort | uniq -d |
	wc -l | sed 's/^/(pid, ip, depth) written twice: /'

ingero-symbolize -v once.ilog -o twice.ilog 2>v.txt || exit 1
sed -E 's/[0-9]+ ips kept/N ips kept/; s/[0-9]+ of [0-9]+ files/0 of 0 files/; s/[0-9]+ stacks/N stacks/; s/[0-9]+\.[0-9] ms/T ms/g; s/[0-9]+ threads?;/N threads;/' v.txt
ingero-export twice.ilog | cmp - once.jsonl && echo "second run: identical"
ingero-symbolize --redo once.ilog | ingero-export | cmp - once.jsonl && echo "--redo: identical"
