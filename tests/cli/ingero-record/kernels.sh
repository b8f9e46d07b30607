# SPDX-License-Identifier: MIT
# Every launch carries its kernel's name (SPEC §5.18).  The workload
# launches four named kernels through the runtime (cudaLaunchKernel with
# the kernel's host stub, a C++-named function of the program) and through
# the driver (handles from cuModuleGetFunction, and from cuLibraryGetKernel
# + cuKernelGetFunction), two threads.  The recorder names the driver
# handles (kernel records), ingero-symbolize the runtime stubs (symbol
# records); then every launch in the JSON has its kernel, and
# ingero-correlate --by kernel counts what the workload counted itself.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

mix=cudaLaunchKernel@vecAdd=3,cuLaunchKernel@gemm=2,cuLaunchKernelEx@softmax
mix+=,cudaLaunchKernel@relu,cuLaunchKernel@vecAdd,cudaLaunchKernel@gemm,cuLaunchKernelEx@relu=2
record_workload "" --mix "$mix" --iters 25 --threads 2
assert_eq "per-op counts" "$(cuda_counts "$wpid" | jq -S -c .)" "$(jq -S -c .calls report.json)"
# the driver's handles are named by the recorder, once per handle
assert_eq "kernel records" \
	"$(jq -s -c '[.[] | select(.type=="kernel")] | [length, (map([.pid, .handle]) | unique | length)]' log.jsonl)" \
	"[6,6]"
timeout 120 ingero-symbolize rec.ilog -o sym.ilog 2>sym.err || fail "ingero-symbolize: $(cat sym.err)"
ingero-export -t cuda sym.ilog >sym.jsonl
launches='select(.op=="cudaLaunchKernel" or .op=="cuLaunchKernel" or .op=="cuLaunchKernelEx")'
assert_eq "launches without a kernel" "$(jq -s "[.[] | $launches | select(.kernel == null)] | length" sym.jsonl)" 0
want=$(jq -S -c .kernels report.json)
assert_eq "launches per kernel (JSON Lines)" \
	"$(jq -s -S -c "[.[] | $launches] | group_by(.kernel) | map({key: .[0].kernel, value: length}) | from_entries" sym.jsonl)" \
	"$want"
# one kernel, two APIs: vecAdd through the runtime and the driver
assert_eq "vecAdd by op" \
	"$(jq -s -c '[.[] | select(.kernel=="vecAdd(float*, float*, float*, int)") | .op] | group_by(.) | map([.[0], length])' sym.jsonl)" \
	'[["cuLaunchKernel",50],["cudaLaunchKernel",150]]'
assert_eq "ingero-correlate --by kernel" \
	"$(ingero-correlate --by kernel --json sym.ilog | jq -s -S -c 'map({key: .kernel, value: .launches}) | from_entries')" \
	"$want"
ingero-correlate --by kernel sym.ilog >table.txt
grep -q 'torch::layers::relu(float\*, int)' table.txt || fail "no relu row: $(cat table.txt)"
# before symbolizing, the runtime launches are not named yet; the driver's are
assert_eq "unnamed before ingero-symbolize" \
	"$(ingero-correlate --by kernel --json rec.ilog | jq -s -c 'map(select(.kernel=="(unknown)")) | map(.runtime)')" \
	"[$(jq '[.calls.cudaLaunchKernel] | add' report.json)]"
# SQLite: the launches view; MCP: get_kernel_stats over it
ingero-export -f sqlite -o run.db sym.ilog
assert_eq "SQLite launches by kernel" \
	"$(sqlite3 -json run.db 'SELECT kernel, count(*) AS n FROM launches GROUP BY kernel' | jq -S -c 'map({key: .kernel, value: .n}) | from_entries')" \
	"$want"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_kernel_stats","arguments":{}}}' |
	ingero-mcp --db run.db >mcp.json
assert_eq "MCP get_kernel_stats" \
	"$(jq -S -c '.result.content[0].text | fromjson | . as $t | .rows | map({key: .[0], value: .[1]}) | from_entries' mcp.json)" \
	"$want"
