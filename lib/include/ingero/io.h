/* SPDX-License-Identifier: MIT */
/* Base layer (lib/base/): I/O loops and clocks.  libc only. */
#ifndef INGERO_IO_H
#define INGERO_IO_H

#include <stddef.h>
#include <stdint.h>

/* Write all n bytes to fd, retrying short writes and EINTR.  0, or -1 with
 * errno set by the failed write. */
int ilog_write_all(int fd, const void *p, size_t n);
/* Copy everything from in (to its end) to out, adding the bytes written to
 * *copied when copied is not NULL.  0; -1 when a read failed, -2 when a
 * write failed, errno set either way. */
int ilog_copy_fd(int in, int out, uint64_t *copied);
/* CLOCK_MONOTONIC now, in nanoseconds. */
uint64_t ilog_mono_ns(void);

#endif
