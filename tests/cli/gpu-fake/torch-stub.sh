# SPDX-License-Identifier: MIT
# bench/gpu/run's PyTorch path (bench/gpu/train.py, the profiler windows,
# summarize.py's GPU branch) on a stand-in torch (torchstub/) whose tensor
# operations call the fake runtime: the cudaLaunchKernel calls the recorder
# saw inside each delimited window equal the stand-in profiler's count.
# The incident's ranking is not judged here (run.sh does, on the fake stack).
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
run=$INGERO_TESTS/../bench/gpu/run
rc=0
PYTHONPATH=$INGERO_TESTS/cli/gpu-fake/torchstub STUB_CUDART=$FAKE/libcudart.so.13 PYTHONDONTWRITEBYTECODE=1 \
	FAKECUDA_MODE_cudaDeviceSynchronize=cpu FAKECUDA_LAT_cudaDeviceSynchronize_NS=1000000 \
	STEPS=100 REPS=1 PROFILE_STEPS=5 INCIDENT_S=5 OUT=$PWD/out "$run" >summary.out 2>bench.err || rc=$?
cat summary.out >&2
[[ $rc == 0 || $rc == 1 ]] || fail "bench/gpu/run exited $rc: $(tail -n 5 bench.err)"
grep -q '^  device: stub GPU, torch 0.0-stub' summary.out || fail "not the PyTorch path"
for phase in "5 training steps" "5 rounds of PyTorch's own kernels"; do
	grep -Eq "^4 launches   $phase: cudaLaunchKernel recorded ([1-9][0-9]*), torch.profiler \\1: counts agree$" summary.out ||
		fail "$phase: counts do not agree"
done
grep -Eq '^               ingero-record +[0-9.]+ ms  [+-][0-9.]+%$' summary.out || fail "no overhead line"
[[ $(find out -type f | wc -l) == 8 ]] || fail "not 8 files"
