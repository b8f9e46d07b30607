# SPDX-License-Identifier: MIT
# dlopen-exact.sh with the mmap() watch a kernel without per-system-call
# tracepoints gets: the raw tracepoint of every system call's exit (forced
# by INGERO_RECORD_HOLD_RAWTP); fewer rounds, the same exactness.
export INGERO_RECORD_HOLD_RAWTP=1 ROUNDS=6 WATCHED="at every system call's exit"
. "$INGERO_TESTS/cli/ingero-record/dlopen-exact.sh"
