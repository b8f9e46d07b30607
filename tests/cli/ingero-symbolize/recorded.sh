# SPDX-License-Identifier: MIT
# A real recording: the fake CUDA workload recorded by ingero-record (real
# eBPF uprobes and user stacks), then symbolized.  Each CUDA call's stack
# starts in the function the probe is on, reaches the workload's main, and
# every frame in the workload and libcudart names the same function and
# file as binutils' addr2line; collected and symbolized elsewhere, the same.
. "$INGERO_TESTS/cli/ingero-record/common.bash" # need_bpf, start_rec, stop_rec, wait_for
need_bpf
command -v addr2line >/dev/null || skip "addr2line (binutils) not installed"
mkdir node-a
cp "$FAKE/workload" "$FAKE/libcudart.so.13" node-a/
node-a/workload --mix cudaMalloc=1,cudaLaunchKernel=2,cudaFree=1 --iters 3 --ready-file ready \
	--wait-file go --report report.json &
wpid=$!
wait_for ready
start_rec --pid "$wpid"
touch go
wait "$wpid" || fail "workload failed"
stop_rec
ingero-symbolize rec.ilog -o sym.ilog 2>sym.err || fail "ingero-symbolize failed"
[[ ! -s sym.err ]] || { cat sym.err >&2; fail "warnings"; }
ingero-export sym.ilog >sym.jsonl

# each call's stack: the probed function first, the workload's main below
jq -r -s '(map(select(.type == "stack")) | map({key: .id, value: .frames}) | from_entries) as $st
	| .[] | select(.type == "cuda" and .stack_id != "0x0")
	| "\(.op): \($st[.stack_id][0].symbol) ... \(if any($st[.stack_id][]; .symbol == "main" and (.file | endswith("workload.c"))) then "main (workload.c)" else "no main" end)"' \
	sym.jsonl | sort | uniq -c | sed 's/^ *[0-9]* //'

# every frame in the node's files: addr2line's function and file
n=0 bad=0
while IFS=$'\x1f' read -r module addr fn file; do
	n=$((n + 1))
	theirs=$(addr2line -f -C -i -e "$module" "$addr" | tail -n 2 | paste -d ' ' - - | sed 's/:[0-9?]*\( (discriminator [0-9]*)\)\?$//')
	[[ $theirs == "$fn $file" ]] || { bad=$((bad + 1)); echo "$module $addr: ours $fn $file, addr2line $theirs" >&2; }
done < <(jq -r -s '(map(select(.type == "stack") | .ips[0]) | map({key: ., value: 1}) | from_entries) as $first
	| .[] | select(.type == "stack") | .frames[] | select((.module // "" | test("/node-a/")) and .inlined == false)
	| [.module, .module_off, (if $first[.ip] then 0 else 1 end), .symbol, .file] | map(tostring) | join("\u001f")' sym.jsonl |
	sort -u | while IFS=$'\x1f' read -r m off back fn file; do printf '%s\x1f0x%x\x1f%s\x1f%s\n' "$m" $((off - back)) "$fn" "$file"; done)
((n >= 4 && bad == 0)) && echo "every frame in workload and libcudart agrees with addr2line"

# on another machine: the bundle alone gives the same
ingero-symbolize --collect bundle rec.ilog 2>/dev/null || fail "--collect failed"
mv node-a gone
ingero-symbolize --sysroot /nonexistent --no-system-debug --debug-dir bundle rec.ilog |
	ingero-export | cmp - sym.jsonl && echo "from the bundle alone: identical"
