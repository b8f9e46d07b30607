# SPDX-License-Identifier: MIT
# --api: every exported function of the CUDA libraries is timed, not only
# the decoded table.  The fakes export several hundred more functions
# (tests/fakecuda/genapi.sh); every one called is recorded with its exact
# count under its own name (a named op, SPEC §5.17, named once in the log)
# with its raw arguments, while the decoded calls keep their decoded
# arguments.  A process that makes only calls the table does not hold
# (device queries, stream and event creation, lazy init) shows nothing by
# default and all of them with --api all; --api LIST selects by name and glob.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

counts_of() { cuda_counts "$1" | jq -c 'to_entries | sort_by(.key) | from_entries'; }
want_of() { jq -c '.calls | to_entries | sort_by(.key) | from_entries' report.json; }

# 1. several hundred functions of two libraries, each a different number of times
mix=cudaStreamCreate=2,cuInit,cudaGetDeviceCount=3,cudaMalloc=2,cudaFree=2,cuMemAlloc_v2,cuMemFree_v2
mix+=,ncclGetVersion=2
for i in $(seq 0 149); do
	mix+=$(printf ',cudaFakeApi%03d=%d,cuFakeApi%03d=%d' "$i" $((i % 5 + 1)) "$i" $((i % 3 + 1)))
done
record_workload "--api all" --mix "$mix" --iters 3 --threads 2 --bytes 4096 --kind 2
assert_eq "functions called" "$(jq '.calls | length' report.json)" 308
assert_eq "per-function counts" "$(counts_of "$wpid")" "$(want_of)"
assert_eq "nothing else recorded" "$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)" \
	"$(jq .total report.json)"
# each name once: one opname record per named op, before its first call
assert_eq "opname records, one per name" \
	"$(jq -s '[.[] | select(.type=="opname") | .name] | (length == (unique | length))' log.jsonl)" true
jq -e -s 'reduce .[] as $r ({ok: true, named: {}};
	if $r.type == "opname" then .named[$r.name] = true
	elif $r.type == "cuda" and ($r.args != null) then .ok = (.ok and (.named[$r.op] // false))
	else . end) | .ok' log.jsonl >/dev/null || fail "a named op's call came before its name"
# raw arguments of a named op; the decoded ones keep theirs
assert_eq "args of cuFakeApi042" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cuFakeApi042") | .args] | unique' log.jsonl)" \
	'[["0x1111","0x1000","0x2","0x4444"]]'
assert_eq "layers of named ops" \
	"$(jq -s -c '[.[] | select(.type=="opname" and (.name=="cuInit" or .name=="cudaStreamCreate" or .name=="ncclGetVersion")) | [.name, .layer]] | sort' log.jsonl)" \
	'[["cuInit","driver"],["cudaStreamCreate","runtime"],["ncclGetVersion","nccl"]]'
assert_eq "cudaMalloc decoded" \
	"$(jq -s -c '[.[] | select(.type=="cuda" and .op=="cudaMalloc") | [.bytes, has("args")]] | unique' log.jsonl)" \
	'[[4096,false]]'
assert_eq "losses" "$(jq -s '[.[] | select(.type=="loss") | .lost] | add' log.jsonl)" 0
assert_eq "probe:cuFakeApi149 seen" \
	"$(last_loss probe:cuFakeApi149 .seen)" \
	"$(jq .calls.cuFakeApi149 report.json)"

# 2. only calls outside the table: nothing by default, all of them with --api all
mix=cuInit,cudaGetDeviceCount,cudaGetDevice=2,cudaDeviceGetAttribute=4,cudaStreamCreate=2
mix+=,cudaStreamCreateWithFlags,cudaEventCreate=3,cudaEventCreateWithFlags
record_workload "" --mix "$mix" --iters 5
assert_eq "without --api" "$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)" 0
record_workload "--api all" --mix "$mix" --iters 5
assert_eq "--api all: the untraced-by-default calls" "$(counts_of "$wpid")" "$(want_of)"

# 3. a list of names and globs
record_workload "--api cudaStream*,cuInit" --mix "$mix" --iters 5
assert_eq "--api 'cudaStream*,cuInit'" "$(counts_of "$wpid")" \
	"$(jq -c '.calls | with_entries(select(.key | test("^(cudaStream|cuInit$)"))) | to_entries | sort_by(.key) | from_entries' report.json)"
