/* SPDX-License-Identifier: MIT */
/*
 * Reading symbolized stacks: a map, filled while a log is read, from
 * (node, pid, ip) to the frames of the symbol records seen so far, and
 * from (node, pid, code object) to the pycode records seen so far, so a
 * stack or pystack record can be shown as frames when it is read.  The
 * reader stays zero-copy: the map copies what it keeps (names once each).
 *
 * The ordering rule it relies on: a symbol record precedes the first
 * stack record that uses its ip (ingero-symbolize writes them so), and
 * a pycode record precedes the pystacks that use its code object (the
 * recorder writes them so).  A stack read before its symbols shows the
 * ips it has no frames for as {"ip": ...} only.  When a key is seen
 * again, the later records replace the earlier ones (a code object freed
 * and its address reused, a re-symbolized ip).
 */
#ifndef ILOG_SYMBOLIZE_MAP_H
#define ILOG_SYMBOLIZE_MAP_H

#include "ingero/ilog.h"

struct ilog_frame {
	uint64_t ip;
	const char *module;       /* mapping path, "" if unknown */
	uint64_t module_off;      /* address in the module's own address space */
	const char *function;     /* "" if unknown */
	uint64_t sym_off;         /* ip - symbol start, on the physical frame */
	const char *file;         /* "" if unknown */
	uint32_t line;            /* 0 if unknown */
	uint32_t inline_depth;    /* 0 innermost; the last frame of an ip is physical */
};

struct ilog_pyloc {
	const char *file, *func;  /* co_filename, co_qualname */
	int line;                 /* > 0, or 0 when the table gives none */
};

struct ilog_symmap;

/* NULL when out of memory. */
struct ilog_symmap *ilog_symmap_new(void);
void ilog_symmap_free(struct ilog_symmap *m);

/* Keep what a record says (symbol and pycode records; others are
 * ignored).  Call it for every record, filtered out or not.  0, or -1
 * out of memory. */
int ilog_symmap_note(struct ilog_symmap *m, const struct ilog_record *rec);

/* The frames of ip in (node, pid), innermost first, *n of them; NULL
 * and *n = 0 when no symbol record named it.  Valid until the next note. */
const struct ilog_frame *ilog_symmap_frames(const struct ilog_symmap *m, uint32_t node,
					    uint32_t pid, uint64_t ip, unsigned *n);

/* The kernel a launch runs (SPEC §5.18), NULL when no record named it: for
 * cudaLaunchKernel the symbol of its host stub (symbol records, from
 * ingero-symbolize), for cuLaunchKernel(Ex) the kernel record of its
 * handle (from the recorder).  Valid until the next note. */
const char *ilog_symmap_kernel(const struct ilog_symmap *m, uint32_t node,
			       const struct ingero_cuda_event *e);

/* Where a pystack frame is: 1 and *out filled when a pycode record gave
 * the code object; 0 when none did.  out->line comes from the line table
 * (lib/include/ingero/pyline.h), 0 when it says nothing for lasti. */
int ilog_symmap_pyframe(const struct ilog_symmap *m, uint32_t node, uint32_t pid,
			uint64_t code, uint32_t lasti, struct ilog_pyloc *out);

/*
 * For a stack or pystack record just rendered by ilog_json_record at the
 * end of b: add, inside that object, the resolved frames (SPEC §6):
 *   stack:   "frames":[{"ip","module","module_off","symbol","offset",
 *            "file","line","inlined"}...], one object per frame of each
 *            ip, inlined ones first, unknown values null;
 *   pystack: "py_frames":[{"py_file","py_func","py_line"}...], one per
 *            entry of its "frames", unknown values null;
 *   cuda (only with ilog_symmap_keep_stacks): "callstack":[...], its
 *            stack and pystack merged (ilog_symmap_callstack), frames as
 *            in the two above.
 * Nothing is added when the map knows none of the record's ips or code
 * objects, so logs that were never symbolized render as before.
 * 0, or -1 out of memory (b is left as it was).
 */
int ilog_symmap_json(const struct ilog_symmap *m, struct ilog_buf *b,
		     const struct ilog_record *rec);

/*
 * A call's stack as people read it: the native frames (inlined ones
 * included), with the Python frames in place of the eval-loop calls that
 * run them (SPEC §5.7 `entry`), innermost first.  Python frames the native
 * stack does not reach (it ended early, or the interpreter has no symbols)
 * come last.  Needs ilog_symmap_keep_stacks before the records are noted.
 */
struct ilog_callframe {
	int py;                   /* 1: a Python frame (pyloc), 0: native (frame) */
	int inlined;              /* native: inlined into the next frame */
	struct ilog_frame frame;  /* native; strings "" when unknown */
	struct ilog_pyloc pyloc;  /* Python; file NULL when no pycode record named it */
	uint64_t pycode;          /* Python: code object address */
	uint32_t lasti;
};

/*
 * Where each of npy Python frames (innermost first) goes in a native stack
 * of nnat frames (innermost first) whose frame i is a C call of the eval
 * loop when is_eval[i]: at[k] = the native frame Python frame k replaces,
 * or nnat when it goes after all of them.  entry as SPEC §5.7 (0: not
 * known -- one frame per eval-loop call if the counts agree, else all to
 * the innermost).
 */
void ilog_py_place(const uint8_t *is_eval, unsigned nnat, unsigned npy, uint64_t entry,
		   unsigned *at);

/* Keep stack and pystack records too (memory: every distinct stack). */
void ilog_symmap_keep_stacks(struct ilog_symmap *m);

/* The frames of the call with these stack ids (either may be 0) into out,
 * at most cap; returns how many (0: neither stack known). */
unsigned ilog_symmap_callstack(const struct ilog_symmap *m, uint32_t node, uint64_t stack_id,
			       uint64_t pystack_id, struct ilog_callframe *out, unsigned cap);

#endif
