/* SPDX-License-Identifier: MIT */
/* Base layer (lib/base/): I/O loops and clocks.  libc only. */
#ifndef INGERO_IO_H
#define INGERO_IO_H

#include <stddef.h>
#include <stdint.h>

/* Write all n bytes to fd, retrying short writes and EINTR.  0, or -1 with
 * errno set by the failed write. */
int ilog_write_all(int fd, const void *p, size_t n);
/* CLOCK_MONOTONIC now, in nanoseconds. */
uint64_t ilog_mono_ns(void);

#endif
