# SPDX-License-Identifier: MIT
# Libraries are found where they are: a process that dlopens a CUDA runtime
# (from a directory no scan knows, as venvs and PyTorch do) seconds after it
# started is attached within 1 s, in the default discovery mode (every CUDA
# process of the user), and every call from then on is recorded.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

mkdir venv venv2 && cp "$FAKE"/libcudart.so.13 venv/ && cp "$FAKE"/libcudart.so.13 venv2/
start_rec
# (a) calls start 1 s after the dlopen: all of them are recorded
"$W" --lib-dir "$PWD/venv" --dlopen-delay 700 --after-load 1000 --iters 200 \
	--report a.json
# (b) calls start at once (from a copy not attached yet): the first recorded
# one is within 1 s of the dlopen
export FAKECUDA_LAT_cudaStreamSynchronize_NS=1000000
"$W" --lib-dir "$PWD/venv2" --dlopen-delay 500 --seconds 2.5 \
	--mix cudaLaunchKernel=4,cudaStreamSynchronize --report b.json
stop_rec
export_log

a=$(jq .pid a.json)
assert_eq "(a) counts" "$(cuda_counts "$a")" "$(jq -S -c .calls a.json)"
b=$(jq .pid b.json)
first=$(jq -s "[.[] | select(.type==\"cuda\" and .pid==$b) | .ts_ns] | min" log.jsonl)
[[ $first != null ]] || fail "(b) nothing recorded"
loaded=$(jq .loaded_ns b.json)
delay=$(( first - loaded ))
echo "first call recorded $((delay / 1000000)) ms after the dlopen" >&2
((delay < 1000000000)) || fail "(b) first call recorded ${delay} ns after the dlopen, not within 1 s"
# after that, nothing is missed: the calls recorded are the calls made after it
n=$(jq -s "[.[] | select(.type==\"cuda\" and .pid==$b)] | length" log.jsonl)
made=$(jq .total b.json)
((n > made / 2)) || fail "(b) recorded $n of $made calls"
jq -e -s "any(.[]; .type==\"mapping\" and .pid==$a and .path==\"$PWD/venv/libcudart.so.13\")" \
	log.jsonl >/dev/null || fail "no mapping record of the venv library"
