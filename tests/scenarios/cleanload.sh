#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
#   cleanload.sh SEED [MAX_SECONDS]
#
# One clean workload, randomized but reproducible from SEED, on the fake
# CUDA libraries ($INGERO_OUT/tests/fakecuda): what a healthy host runs,
# which ingero-correlate must not raise an alarm about.  Run it under the
# recorder (ingero-record -- cleanload.sh SEED); tests/cli/cleanload and
# bench/cleanload/run do.  Prints its plan, one line per job.
#
# What is drawn from SEED:
#   jobs        1-3 of: a process (lifetime log-uniform from 5 ms to
#               MAX_SECONDS, default 20), a process that forks 1-2 children,
#               or a burst of 5-20 short-lived processes (3-30 ms each, one
#               after the other); each starts 0-1 s in and loads the CUDA
#               libraries 0-400 ms after it starts (dlopen, as PyTorch does)
#   threads     1-4 per process
#   call mix    kernel launches (1-16 per step, runtime or driver API),
#               copies, syncs, allocations and frees in random proportions
#   latencies   per op, log-uniform in a realistic range (launch 3-30 us,
#               copy 20-500 us, sync 0.2-5 ms, alloc 10-200 us), with
#               log-normal jitter of 5-40% and a first call 0.2-3 ms slower
#               (context creation); host work of 0-40 us between calls
#   host noise  none, or any of: a periodic short CPU task (a checksum of
#               256 KiB every 0.3-1 s), memory churn (16 MiB allocated,
#               touched and freed every 1-3 s), disk writes (8 MiB with
#               fsync every 0.5-2 s) -- the background of a real host, not
#               contention
#
# Clean means no bottleneck by construction: waits on the "GPU" sleep,
# copies take at most half of the syncs, and the CPU is never the
# constraint.  Each thread is busy at most an eighth of each step: its
# launches and host work plus what recording its calls costs (REC_NS, 10 us
# a call: the uprobe traps of this kind of host, bench/record/run), the
# sync waits stretched to make up the rest.  The threads of all jobs
# together are at most twice the host's CPUs (nproc), so they keep it at
# most a quarter busy, and the noise tasks at most about a tenth of one CPU
# each (measured on the 2-CPU host under the recorder, which runs a program
# on every page allocation: the checksum ~20 ms of CPU with its process
# starts, the churn 60-70 ms, the writes 10-20 ms; bench/RESULTS.md has the
# seeds that contended before these bounds).  The host itself may be busy
# with others: record_clean.sh reads what the recorder saw.
set -uo pipefail
seed=$1
max_s=${2:-20}
W=${INGERO_OUT:?}/tests/fakecuda/workload
ncpu=$(nproc)
REC_NS=10000 # what recording a call costs its thread (two uprobe traps)

# The draws: a 31-bit linear congruential generator whose state lives in
# this shell, each draw setting R.  Not $RANDOM, and no draw in $(...):
# bash reseeds $RANDOM in every subshell from the time and PID, so the
# plans were not reproducible from SEED.
st=$((seed & 0x7fffffff))
draw() { st=$(((st * 1103515245 + 12345) & 0x7fffffff)); }
# rnd LO HI: R = an integer in [LO, HI]
rnd() { draw; R=$(($1 + (st >> 8) % ($2 - $1 + 1))); }
# logu LO HI: R = log-uniform in [LO, HI] (integers, LO > 0)
logu() {
	draw
	R=$(awk -v lo="$1" -v hi="$2" -v u=$((st >> 8)) 'BEGIN { printf "%d", exp(log(lo) + u / 8388607 * (log(hi) - log(lo))) }')
}

pids=()
noise=()
cleanup() {
	local p
	for p in "${noise[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
}
trap cleanup EXIT

# one process's environment and arguments: sets envs, args, spin_ns
job_setup() {
	local life_ms=$1 threads=$2
	local launch copy sync alloc jit cold nl nc ns na gap lop=cudaLaunchKernel
	logu 3000 30000; launch=$R
	logu 20000 500000; copy=$R
	logu 200000 5000000; sync=$R
	logu 10000 200000; alloc=$R
	rnd 5 40; jit=$R
	logu 200000 3000000; cold=$R
	rnd 1 16; nl=$R
	rnd 0 3; nc=$R
	rnd 1 2; ns=$R
	rnd 0 1; na=$R
	rnd 0 40000; gap=$R
	rnd 0 3; ((R == 0)) && lop=cuLaunchKernel
	local mix="$lop=$nl,cudaMemcpyAsync=$nc,cudaStreamSynchronize=$ns"
	((na)) && mix="cudaMalloc=1,$mix,cudaFree=1"
	# the CPU a step spends (launches, host work between calls and the
	# recording of every call) is at most an eighth of the step: the sync
	# waits make up the rest
	local calls=$((nl + nc + ns + 2 * na))
	local spin=$((nl * launch + calls * gap))
	local cpu=$((spin + calls * REC_NS))
	((sync * ns < 7 * cpu)) && sync=$(((7 * cpu + ns - 1) / ns))
	# the GPU's work sets the pace: copies take at most half the syncs
	((2 * nc * copy > ns * sync)) && sync=$(((2 * nc * copy + ns - 1) / ns))
	local step=$((cpu + nc * copy + ns * sync + na * 2 * alloc))
	draw; local fseed=$st
	envs=(FAKECUDA_MODE=sleep FAKECUDA_MODE_cudaLaunchKernel=spin FAKECUDA_MODE_cuLaunchKernel=spin
		FAKECUDA_LAT_cudaLaunchKernel_NS=$launch FAKECUDA_LAT_cuLaunchKernel_NS=$launch
		FAKECUDA_LAT_cudaMemcpyAsync_NS=$copy FAKECUDA_LAT_cudaStreamSynchronize_NS=$sync
		FAKECUDA_LAT_cudaMalloc_NS=$alloc FAKECUDA_LAT_cudaFree_NS=$alloc
		FAKECUDA_JITTER_PCT=$jit FAKECUDA_FIRST_${lop}_NS=$cold FAKECUDA_SEED=$fseed)
	local iters=$((life_ms * 1000000 / step / threads))
	((iters < 1)) && iters=1
	# a clean job's async copies read pinned memory (pageable ones block)
	args=(--mix "$mix" --threads "$threads" --gap-ns "$gap" --iters "$iters" --pin-host)
	echo "    mix $mix, threads $threads, step $((step / 1000)) us, $iters iterations;" \
		"launch $launch ns, copy $copy ns, sync $sync ns, alloc $alloc ns, jitter $jit%, first call +$cold ns, host work $gap ns"
}

busy=0 # threads of all jobs together
rnd 1 3; njobs=$R
for ((j = 0; j < njobs; j++)); do
	rnd 0 19; kind=$R
	rnd 0 1000; start_ms=$R
	rnd 1 4; threads=$R
	procs=1
	if ((kind < 3)); then
		kind=burst threads=1
	elif ((kind < 6)); then
		rnd 1 2; kind=fork procs=$((1 + R))
	else
		kind=process
	fi
	((busy + threads * procs > 2 * ncpu)) && threads=1
	((busy + threads * procs > 2 * ncpu)) && continue
	busy=$((busy + threads * procs))
	rnd 0 400; dl=$R
	if [[ $kind == burst ]]; then
		rnd 5 20; n=$R
		echo "job $j: a burst of $n short-lived processes from +$start_ms ms"
		rnd 3 30; job_setup "$R" 1
		(
			sleep "$(awk -v m="$start_ms" 'BEGIN { print m / 1000 }')"
			for ((i = 0; i < n; i++)); do
				env "${envs[@]}" "$W" "${args[@]}" >/dev/null || exit 1
				rnd 0 3; sleep "0.0$R"
			done
		) &
	else
		logu 5 $((max_s * 1000)); life=$R
		echo "job $j: $kind ($procs processes) living $life ms from +$start_ms ms, libraries loaded after $dl ms"
		job_setup "$life" "$threads"
		((procs > 1)) && args+=(--fork $((procs - 1)))
		(sleep "$(awk -v m="$start_ms" 'BEGIN { print m / 1000 }')" &&
			exec env "${envs[@]}" "$W" "${args[@]}" --dlopen-delay "$dl" >/dev/null) &
	fi
	pids+=($!)
done

# the host's background
tmp=$(mktemp -d)
rnd 0 1
if ((R)); then
	rnd 300 999; p=$R
	echo "noise: a checksum of 256 KiB every $p ms"
	(while :; do head -c 262144 /dev/urandom | cksum >/dev/null; sleep "0.$p"; done) &
	noise+=($!)
fi
rnd 0 1
if ((R)); then
	rnd 10 30; p=$R
	echo "noise: 16 MiB allocated, touched and freed every $((p * 100)) ms"
	(while :; do dd if=/dev/zero of=/dev/null bs=16M count=1 status=none; sleep "$((p / 10)).$((p % 10))"; done) &
	noise+=($!)
fi
rnd 0 1
if ((R)); then
	rnd 5 20; p=$R
	echo "noise: 8 MiB written with fsync every $((p * 100)) ms"
	(while :; do dd if=/dev/zero of="$tmp/noise" bs=1M count=8 conv=fsync status=none; sleep "$((p / 10)).$((p % 10))"; done) &
	noise+=($!)
fi

rc=0
for p in "${pids[@]}"; do
	wait "$p" || rc=1
done
rm -rf "$tmp"
exit $rc
