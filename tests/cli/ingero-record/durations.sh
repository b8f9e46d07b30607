# SPDX-License-Identifier: MIT
# Durations computed in BPF (entry to return) match what the workload
# measured around each call: per op, the summed recorded time is within 10%
# of the workload's own sum, and never below the latency the fake injected.
# Latencies: fixed per op, proportional to bytes for copies (bandwidth),
# spin and sleep modes.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

export FAKECUDA_LAT_cudaStreamSynchronize_NS=2000000   # 2 ms, spinning
export FAKECUDA_LAT_cudaMalloc_NS=300000
export FAKECUDA_BW_cudaMemcpy_MBPS=1000                # 1 MB/s = 1 byte/us: 200 KB = 200 us
export FAKECUDA_LAT_cuCtxSynchronize_NS=1000000
export FAKECUDA_MODE_cuCtxSynchronize=sleep
export FAKECUDA_LAT_cudaLaunchKernel_NS=100000
# every launch timed: at the default (--launch-timing) most launches carry
# no duration (SPEC §5.4 UNTIMED), and this case checks the durations
record_workload "--launch-timing 1" --mix cudaMalloc,cudaMemcpy=2,cudaLaunchKernel=5,cudaStreamSynchronize,cuCtxSynchronize,cudaFree \
	--bytes 200000 --iters 60

declare -A floor=([cudaStreamSynchronize]=2000000 [cudaMalloc]=300000 [cudaMemcpy]=200000
	[cuCtxSynchronize]=1000000 [cudaLaunchKernel]=100000)
for op in "${!floor[@]}"; do
	got=$(jq -s "[.[] | select(.type==\"cuda\" and .op==\"$op\") | .dur_ns] | add" log.jsonl)
	want=$(jq ".dur_ns.$op" report.json)
	n=$(jq ".calls.$op" report.json)
	awk -v g="$got" -v w="$want" 'BEGIN { exit !(g >= 0.9 * w && g <= 1.1 * w) }' ||
		fail "$op: recorded $got ns in all, the workload measured $want ns (more than 10% apart)"
	min=$(jq -s "[.[] | select(.type==\"cuda\" and .op==\"$op\") | .dur_ns] | min" log.jsonl)
	((min >= ${floor[$op]})) || fail "$op: a call took $min ns, less than the injected ${floor[$op]} ns"
	echo "$op: $n calls, recorded $got ns, workload $want ns" >&2
done
