# SPDX-License-Identifier: MIT
# Every frame in the test program and its library agrees with two other
# DWARF readers on the same address.  binutils' addr2line -f -C -i: the
# length of the inline chain, every frame's file, the outer frames' lines
# and the name of the function the code belongs to.  gdb's "info line":
# the innermost frame's line.  (addr2line names an inlined frame after its
# caller and, next to location views, takes the line of the following
# row, so those two parts are checked against gdb and frames.sh instead.)
. "$INGERO_TESTS/symbolize/common.sh"
for t in addr2line gdb; do
	command -v $t >/dev/null || { echo "$t not installed (tests/deps.txt)" >&2; exit 77; }
done
record node-a
ingero-symbolize node-a/run.ilog -o sym.ilog || exit 1
# per ip: module, lookup address (a stack's first ip as it is, a return
# address one byte back, inside its call), then "function file:line" per frame
ingero-export -t stack,symbol sym.ilog |
	jq -r -s '(map(select(.type == "stack") | .ips[0]) | map({key: ., value: 1}) | from_entries) as $first
		| .[] | select(.type == "symbol" and (.module | test("/node-a/")))
		| [.ip, .module, .module_off, (if $first[.ip] then 0 else 1 end), .function,
		   (if .file == "" then "??" else .file end), (if .line == 0 then "?" else .line end)]
		| map(tostring) | join("\u001f")' |
	while IFS=$'\x1f' read -r ip module off back fn file line; do
		if [[ $ip != "${last:-}" ]]; then
			[[ -n ${last:-} ]] && echo "$out"
			last=$ip
			out=$(printf '%s\x1f0x%x' "$module" $((off - back)))
		fi
		out+=$'\x1f'"$fn $file:$line"
	done >ours.txt
n=0 bad=0
while IFS=$'\x1f' read -r module addr frames; do
	n=$((n + 1))
	mine=$(tr '\037' '\n' <<<"$frames")
	theirs=$(addr2line -f -C -i -e "$module" "$addr" | sed 's/ (discriminator [0-9]*)$//' |
		paste -d ' ' - -)
	gdbline=$(gdb -batch -ex "info line *$addr" "$module" 2>/dev/null |
		sed -n 's/^Line \([0-9]*\) of "\(.*\)".*/\1/p' | head -n1)
	# all but the innermost line from addr2line, that one from gdb
	want=$(sed 's/:[0-9?]*$//' <<<"$theirs" | sed '1!d'; sed '1d' <<<"$theirs")
	got=$(sed 's/:[0-9?]*$//' <<<"$mine" | sed '1!d'; sed '1d' <<<"$mine")
	if [[ $(wc -l <<<"$mine") != $(wc -l <<<"$theirs") ||
		$(tail -n1 <<<"$mine" | cut -d' ' -f1) != $(tail -n1 <<<"$theirs" | cut -d' ' -f1) ||
		$(awk '{print $NF}' <<<"$got" | sed 's/:.*//') != $(awk '{print $NF}' <<<"$want" | sed 's/:.*//') ||
		$(sed '1d' <<<"$got") != $(sed '1d' <<<"$want") ||
		$(head -n1 <<<"$mine" | sed 's/.*://') != "${gdbline:-?}" ]]; then
		bad=$((bad + 1))
		{
			echo "$module $addr: ours:"
			sed 's/^/    /' <<<"$mine"
			echo "  addr2line:"
			sed 's/^/    /' <<<"$theirs"
			echo "  gdb info line: ${gdbline:-none}"
		} >&2
	fi
done <ours.txt
echo "$n addresses compared, $bad differ"
