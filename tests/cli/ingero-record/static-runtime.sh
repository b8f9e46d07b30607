# SPDX-License-Identifier: MIT
# A program whose CUDA runtime is linked in (no libcudart.so mapped, only the
# driver's libcuda, as nvcc's default -cudart static builds): --check names
# it, and its driver calls are recorded exactly.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
mkdir drv
cp "$(dirname "$W")/libcuda.so.1" drv/
"$W" --lib-dir drv --mix cuLaunchKernel=3,cuMemAlloc,cuMemFree,cuCtxSynchronize --iters 200 \
	--ready-file ready0 --wait-file go0 --report report0.json &
p0=$!
wait_for ready0
ingero-record --check >check.txt 2>&1
touch go0
wait "$p0" || fail "workload failed"
grep -q "static cuda runtime *$p0 (workload): libcuda mapped, no libcudart.so" check.txt ||
	fail "--check does not name pid $p0: $(grep -i cuda check.txt)"
record_workload "" --lib-dir drv --mix cuLaunchKernel=3,cuMemAlloc,cuMemFree,cuCtxSynchronize --iters 200
want=$(jq -c '.calls | to_entries | sort_by(.key) | from_entries' report.json)
got=$(cuda_counts "$wpid" | jq -c 'to_entries | sort_by(.key) | from_entries')
assert_eq "driver counts" "$got" "$want"
echo "ok: named by --check, $(jq '.calls.cuLaunchKernel' report.json) cuLaunchKernel recorded"
