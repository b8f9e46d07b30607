# SPDX-License-Identifier: MIT
# The fake NCCL's rendezvous, which the multi-rank scenarios stand on
# (tests/fakecuda/README.md), without BPF: two workload processes are
# ranks 0 and 1 of a communicator of a marked id.  Rank 1 starts 0.4 s
# after rank 0 and spends 0.4 s in its all-reduce's host call: rank 0's
# ncclCommInitRank waits for it to join, and rank 0's synchronize for its
# all-reduce, while rank 0's all-reduce itself returns at once; the last
# rank to destroy the communicator removes its file.  Ranks that disagree
# on the size are refused (ncclInvalidUsage).
set -euo pipefail
W=$INGERO_OUT/tests/fakecuda/workload
export FAKECUDA_NCCL_DIR=$PWD
id() { printf 464b4e43434c3031; od -An -tx1 -N16 /dev/urandom | tr -d ' \n'; }
mix=ncclCommInitRank,ncclAllReduce,cudaStreamSynchronize,ncclCommDestroy
a=$(id)
"$W" --nccl-id "$a" --nranks 2 --rank 0 --mix $mix --iters 1 --report r0.json &
r0=$!
sleep 0.4
FAKECUDA_LAT_ncclAllReduce_NS=400000000 "$W" --nccl-id "$a" --nranks 2 --rank 1 --mix $mix \
	--iters 1 --report r1.json
wait $r0
ms() { jq ".dur_ns.$2 / 1e6 | floor" "$1"; }
echo "rank 0: init $(ms r0.json ncclCommInitRank) ms, all-reduce $(ms r0.json ncclAllReduce) ms," \
	"sync $(ms r0.json cudaStreamSynchronize) ms; rank 1: sync $(ms r1.json cudaStreamSynchronize) ms" >&2
(($(ms r0.json ncclCommInitRank) >= 300)) || { echo "rank 0's init did not wait for rank 1" >&2; exit 1; }
(($(ms r0.json ncclAllReduce) < 200)) || { echo "rank 0's all-reduce did not return at once" >&2; exit 1; }
(($(ms r0.json cudaStreamSynchronize) >= 300)) || { echo "rank 0's sync did not wait" >&2; exit 1; }
(($(ms r1.json cudaStreamSynchronize) < 200)) || { echo "rank 1's sync waited" >&2; exit 1; }
[[ $(jq -c '[.ret[]] | unique' r0.json r1.json | sort -u) == '[0]' ]] || { echo "a call failed" >&2; exit 1; }
! ls fakenccl-* 2>/dev/null || { echo "the communicator's file is left" >&2; exit 1; }

# sizes that disagree: the second to join is refused; the first waits on
b=$(id)
timeout 2 "$W" --nccl-id "$b" --nranks 2 --rank 0 --mix ncclCommInitRank --iters 1 >/dev/null &
r0=$!
sleep 0.2
"$W" --nccl-id "$b" --nranks 3 --rank 1 --mix ncclCommInitRank --iters 1 --report bad.json
[[ $(jq -c .ret bad.json) == '{"ncclCommInitRank":5}' ]] || { echo "sizes disagree: $(jq -c .ret bad.json)" >&2; exit 1; }
rc=0
wait $r0 || rc=$?
[[ $rc == 124 ]] || { echo "rank 0 did not wait for its peer (exit $rc)" >&2; exit 1; }
