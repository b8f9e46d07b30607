# SPDX-License-Identifier: MIT
# bench/gpu/run as CI runs it: INGERO_GPU_FAKE=1, the fake CUDA stack
# standing in for PyTorch on a GPU.  It must exit 0 within about 90 s,
# its summary must say the recorded cudaLaunchKernel count agrees with
# the workload's own and that ingero-correlate ranked the staged CPU hog
# first, and it must leave at most 8 files, those the summary names.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
run=$INGERO_TESTS/../bench/gpu/run
[[ -x $run ]] || fail "$run missing"

start=$(date +%s)
rc=0
INGERO_GPU_FAKE=1 OUT=$PWD/out "$run" >summary.out 2>bench.err || rc=$?
took=$(($(date +%s) - start))
cat summary.out >&2
[[ $rc == 0 ]] || fail "bench/gpu/run exited $rc: $(tail -n 5 bench.err)"
((took <= 120)) || fail "bench/gpu/run took ${took} s (about 90 wanted)"
grep -Eq '^4 launches .*cudaLaunchKernel recorded ([0-9]+), the fake workload.s own count \1: counts agree$' summary.out ||
	fail "the summary does not say the launch counts agree"
grep -q "every op: recorded = the workload's count" summary.out || fail "per-op counts differ"
grep -Eq '^5 incident .*culprit ingero-hog \(PID [0-9]+\).*: hog ranked first$' summary.out ||
	fail "the hog was not ranked first: $(grep -A3 '^#1' out/incident-report.txt)"
grep -q '^result       PASS (counts agree, hog ranked first)' summary.out || fail "no PASS line"
grep -Eq '^3 counts     [0-9]+ CUDA events, 0 dropped; per layer: driver [0-9]+, graph [0-9]+, runtime [0-9]+$' summary.out ||
	fail "no counts per layer, or drops"
grep -Eq '^               ingero-record +[0-9.]+ ms  [+-][0-9.]+%$' summary.out || fail "no overhead line"
grep -Eq '^               --stack=false +[0-9.]+ ms  [+-][0-9.]+%$' summary.out || fail "no --stack=false line"
n=$(find out -type f | wc -l)
((n <= 8)) || fail "$n files under OUT, at most 8 wanted"
for f in summary.txt summary.json check.txt overhead.tsv counts.json count.ilog incident.ilog incident-report.txt; do
	[[ -s out/$f ]] || fail "out/$f missing or empty"
done
cmp -s summary.out out/summary.txt || fail "the printed summary differs from out/summary.txt"
# the evidence is real: the report ranks the hog first, the logs read
grep -Eq '^#1 .*cpu-contention' out/incident-report.txt || fail "report: $(grep '^#1' out/incident-report.txt)"
ingero-export -t cuda out/count.ilog | jq -s -e 'length > 1000' >/dev/null || fail "count.ilog unreadable"
jq -e '.pass == true and .counts_agree == true and .hog_ranked_first == true' out/summary.json >/dev/null ||
	fail "summary.json does not say pass"
