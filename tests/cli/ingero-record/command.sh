# SPDX-License-Identifier: MIT
# ingero-record -- COMMAND (what `make demo` uses): the command runs under
# recording, its libraries (dlopened just before its first calls) are
# attached before those calls run, every call is recorded, and recording
# stops when it exits.  --duration ends a longer command with SIGTERM.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

start=$(date +%s%N)
ingero-record --duration 60s -o rec.ilog -- "$W" --fork 1 --iters 200 \
	--mix cudaMalloc,cudaLaunchKernel=3,cuLaunchKernel,cuMemAlloc_v2,ncclAllReduce,cudaFree \
	--report report.json 2>rec.err || fail "ingero-record exited $?"
took=$(( ($(date +%s%N) - start) / 1000000 ))
((took < 20000)) || fail "recording went on ${took} ms after the command ended"
export_log
pids=$(jq -r '.pids | join(" ")' report.json)
assert_eq "every call of the command and its child" "$(cuda_counts "$pids")" \
	"$(jq -S -c .calls report.json)"
for p in $pids; do
	assert_eq "exit event of $p" \
		"$(jq -s "[.[] | select(.type==\"host\" and .host_type==\"exit\" and .pid==$p)] | length" log.jsonl)" 1
done

# --duration stops a command that runs longer, and the log is complete
rm -f rec.ilog
start=$(date +%s%N)
ingero-record -q --duration 2s -o rec.ilog -- "$W" --seconds 60 --gap-ns 100000 \
	--report long.json 2>rec.err || fail "ingero-record exited $?"
took=$(( ($(date +%s%N) - start) / 1000000 ))
((took >= 2000 && took < 15000)) || fail "--duration 2s took ${took} ms"
[[ ! -s long.json ]] || fail "the command was not stopped"
export_log
n=$(jq -s '[.[] | select(.type=="cuda")] | length' log.jsonl)
((n > 100)) || fail "only $n events in 2 s"
assert_eq "last record" "$(tail -n 1 log.jsonl | jq -r .type)" clock
