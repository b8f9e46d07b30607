# SPDX-License-Identifier: MIT
# dlopen-exact.sh with the mmap() watch a kernel without the mmap_lock
# tracepoints gets: mmap()'s own system-call tracepoints (forced by
# INGERO_RECORD_HOLD_TP); fewer rounds, the same exactness.
export INGERO_RECORD_HOLD_TP=1 ROUNDS=6 WATCHED="by its system call's tracepoints"
. "$INGERO_TESTS/cli/ingero-record/dlopen-exact.sh"
