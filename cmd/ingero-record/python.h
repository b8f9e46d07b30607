/* SPDX-License-Identifier: MIT */
/*
 * CPython processes (python.c): finding the interpreter a target process
 * runs, telling the kernel frame walker (bpf/pywalk.bpf.h) where its
 * structures are, and turning the walker's Python stacks into pycode and
 * pystack records (SPEC §5.7, §5.10, §7.3).
 */
#ifndef INGERO_REC_PYTHON_H
#define INGERO_REC_PYTHON_H

#include <stddef.h>
#include <stdint.h>

struct rec;

/* Per-process interpreter state, hung off struct rec_proc (opaque). */
struct rec_pyproc;

/* Before the BPF object is loaded: switch the walker on or off. */
void rec_py_setup(struct rec *r);

/*
 * A new executable mapping of a target process (discover.c): if it is a
 * CPython interpreter (libpython3.N.so*, or the process's executable with
 * _PyRuntime in its symbols), compute its layout and hand it to the
 * walker.  Unsupported versions are warned about once per file.
 */
void rec_py_mapping(struct rec *r, uint32_t pid, const char *file, const char *open_path,
		    uint64_t start, uint64_t offset);

/*
 * A pystack ring message: read each code object not read before (or
 * changed since) from the process and write its pycode record, then the
 * pystack record.  Damaged messages are ignored.
 */
void rec_py_stack(struct rec *r, const void *msg, size_t size);

/* Remove the probes python.c attached (at shutdown). */
void rec_py_close(struct rec *r);

/* Loss records "pystacks" (ring), "pycode" (unreadable code objects) and
 * "pystack-depth" (stacks cut to their innermost INGERO_MAX_PYFRAMES). */
void rec_py_losses(struct rec *r, uint64_t ts);

#endif
