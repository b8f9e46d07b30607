# SPDX-License-Identifier: MIT
# Random bit flips over a real recording (the fake CUDA workload, recorded
# by the real recorder): each costs its own frame and no other; the rest
# reads back exactly (SPEC §9; tests/cli/ingero-export/bitflip.bash says
# how it is checked).
. "$INGERO_TESTS/cli/ingero-record/common.bash"
. "$INGERO_TESTS/cli/ingero-export/bitflip.bash"
need_bpf
# three seconds of calls: the recorder ends a frame every second (or
# 1 MiB), so the log has several
export FAKECUDA_LAT_NS=40000
record_workload "" --mix cudaLaunchKernel=4,cudaMemcpyAsync,cudaStreamSynchronize --seconds 3
flip_check rec.ilog 20 "$RANDOM" || fail "a flip cost more than its frame"
((flips_damaged >= 10)) || fail "only $flips_damaged of 20 flips were damage"
echo "20 flips over a recording of $(wc -l <whole.jsonl) records: each read back all but its frame" >&2
