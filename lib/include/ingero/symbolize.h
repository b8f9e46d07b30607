/* SPDX-License-Identifier: MIT */
/*
 * Offline symbolization (DESIGN "The filters": symbolize).  A stack
 * record holds instruction pointers of a process; the process's mapping
 * records say which file, at which file offset, and with which GNU
 * build-id each one came from.  This turns (mapping, ip) into frames:
 * module, function + offset, source file:line, inlined callers, with C++
 * names demangled, by reading the ELF file and its DWARF (libdw).
 *
 * Finding the file, in order (the first that fits is used):
 *   1. <sysroot>/<mapping path>, if its build-id is the recorded one;
 *   2. each debug directory, then <sysroot>/usr/lib/debug:
 *      DIR/.build-id/xx/rest (a whole ELF, as --collect stores it), then
 *      DIR/.build-id/xx/rest.debug (separate debug info);
 * and for DWARF and .symtab missing from the file found (a stripped
 * binary), the same directories by build-id.  A file whose build-id
 * differs from the recorded one is reported and never used: frames stay
 * module+offset rather than take another build's names.  A mapping with
 * no recorded build-id can only be checked by its path.
 *
 * Frames of one ip, innermost first (struct ilog_symbol.inline_depth 0,
 * 1, ...): the code at ip, which may be a function inlined into the next
 * frame, up to the function the code physically belongs to.  module_off
 * is the ip in the ELF file's own address space (what `addr2line -e
 * module` takes), or its offset in the file when no file was found to
 * translate it; sym_off is ip minus the start of the ELF symbol, kept on
 * the physical frame.  A return address (any ip but a stack's first)
 * is looked up at ip - 1, inside the call instruction, so the line is
 * the call's and not the next statement's.
 */
#ifndef ILOG_SYMBOLIZE_H
#define ILOG_SYMBOLIZE_H

#include "ingero/ilog.h"

/* ILOG_SYM_DAMAGE (the filter): a damaged range of an input, skipped
 * (SPEC §9): "NAME: offset N: problem (...)"; the filter returns -1 at
 * the end, err naming the first. */
enum ilog_sym_level { ILOG_SYM_WARN = 0, ILOG_SYM_INFO = 1, ILOG_SYM_DAMAGE = 2 };

struct ilog_symbolize_opts {
	const char *sysroot;               /* NULL or "" = / */
	const char *const *debug_dirs;     /* searched in this order */
	unsigned ndebug_dirs;
	int no_system_debug;               /* skip <sysroot>/usr/lib/debug */
	int redo;                          /* filter: drop the input's symbol
					    * records and resolve every ip again */
	/* filter: threads to use: 1, or 2 (a second one resolves new ips
	 * while the first reads on, and they share out the rest); 0 picks
	 * 2 where this process may use two CPUs or more.  Two take about
	 * 10% more CPU time; on a busy machine their wall time is about
	 * one thread's, on an idle one 30% less (bench/RESULTS.md). */
	int threads;
	/* Problems, each once per module: a missing or mismatched file
	 * (ILOG_SYM_WARN), or a module without debug info (ILOG_SYM_INFO).
	 * msg is one line without the program name. */
	void (*report)(void *arg, enum ilog_sym_level level, const char *msg);
	void *report_arg;
	/* Optional: the filter's progress, every 65536 records of each pass
	 * (1: gathering mappings, 2: writing) and once at each pass's end. */
	void (*progress)(void *arg, int pass, uint64_t records);
	void *progress_arg;
};

struct ilog_symbolizer;

/* NULL when out of memory.  The options (and strings in them) must
 * outlive the symbolizer. */
struct ilog_symbolizer *ilog_symbolizer_new(const struct ilog_symbolize_opts *o);
void ilog_symbolizer_free(struct ilog_symbolizer *s);

/*
 * Frames for ip, an address inside mapping m of process m->pid; `ret` is
 * non-zero for return addresses (see above).  Fills out[0..max) with
 * pid, ip, build_id, module, module_off, function, sym_off, file, line
 * and inline_depth; strings are owned by s and valid until it is freed.
 * Unknown parts are empty strings and 0.  Returns the number of frames
 * (at least 1 when max > 0), or -1 out of memory.
 */
int ilog_symbolizer_lookup(struct ilog_symbolizer *s, const struct ilog_mapping *m,
			   uint64_t ip, int ret, struct ilog_symbol *out, unsigned max);

/* Distinct files asked for so far; *found (may be NULL) gets how many
 * of them were found and readable. */
uint64_t ilog_symbolizer_modules(const struct ilog_symbolizer *s, uint64_t *found);

/* The GNU build-id of the ELF file at path: its length (> 0), 0 if it has
 * none, -1 if the file cannot be read or is not ELF (err says why). */
int ilog_elf_build_id(const char *path, uint8_t *id, size_t cap, char *err, size_t errlen);

struct ilog_symbolize_stats {
	uint64_t records, stacks, ips;   /* read; distinct (node, pid, ip) */
	uint64_t symbols;                /* symbol records written */
	uint64_t resolved;               /* ips given a function name */
	uint64_t kept;                   /* ips that already had symbols */
	uint64_t modules, modules_found; /* distinct files wanted / found */
	uint64_t read_ns;                /* wall time: reading the input (pass 1), */
	uint64_t resolve_ns;             /* resolving after it (with --threads 2, */
	uint64_t write_ns;               /* what was left), writing the output */
	uint32_t threads;                /* threads it used */
};

struct ilog_symbolize_input {
	const char *name;                /* for messages */
	int fd;                          /* need not be seekable */
};

/*
 * The filter: reads the inputs in turn as one stream (like cat) and
 * writes it to out_fd with symbol records added.  Every input record is
 * written unchanged and in order.  For each (node, pid, ip) of a stack
 * record that has no symbol record yet, the frames are written as
 * symbol records immediately before the first stack record that uses
 * the ip, so a reader that keeps the symbols it has seen can resolve
 * every stack as it reads it (the rule lib/include/ingero/symbolize_map.h relies on).
 * Mappings are looked up over the whole input, so a mapping recorded
 * after a stack still resolves it: among mappings of the pid covering
 * ip, the latest one before the stack wins, else the first after it.
 * Symbol records already in the input are kept and their ips not
 * resolved again, so running the filter on its own output adds nothing
 * (with opts.redo they are dropped instead and every ip resolved anew,
 * for a second run with more debug directories).
 *
 * Inputs are read twice; one that cannot seek (a pipe) is first copied
 * to an unlinked temporary file in $TMPDIR.  The second time, the input's
 * zstd frames are copied byte for byte, the symbol records of a frame's
 * new ips in a frame of their own before it; a frame in which they must
 * follow a header or node record is written again with them inside (SPEC
 * §5.13).  New ips are resolved module by module, in address order;
 * with two threads (opts.threads), those whose mapping is known when
 * their stack is read are resolved on the second while the first reads
 * on, and the two share out the modules left when the reading ends.
 * Problems are still reported in stream order and the output is the same
 * bytes either way.  A damaged range of an input is reported (report,
 * ILOG_SYM_DAMAGE) and left out; the records after it are written.
 * Returns 0; -1 with err set ("NAME: offset N: problem") when an input
 * is damaged (every record but those of its damaged frames is still
 * written) or output fails.
 */
int ilog_symbolize_filter(const struct ilog_symbolize_opts *o,
			  const struct ilog_symbolize_input *in, unsigned nin, int out_fd,
			  struct ilog_symbolize_stats *st, char *err, size_t errlen);

struct ilog_collect_stats {
	uint64_t copied, present, missing, bytes;
};

/*
 * --collect: copies each ELF file named by the mapping records it is
 * given into dir as dir/.build-id/xx/rest (found as step 1 above: the
 * path, with its build-id checked), and the separate debug file, when a
 * debug directory has one, as dir/.build-id/xx/rest.debug.  Files already
 * there are skipped, and each file is looked at once; copies are written
 * to a temporary name and renamed, so an interrupted run leaves no
 * partial file.  Mappings without a build-id cannot be keyed and are
 * reported.  The caller reads the logs:
 *
 *	struct ilog_collect *c = ilog_collect_new(&opts, dir, err, errlen);
 *	for each mapping record: ilog_collect_add(c, &rec->u.mapping, err, errlen)
 *	ilog_collect_stats(c), ilog_collect_free(c)
 *
 * o (its sysroot, debug directories, report) and dir must outlive c.
 */
struct ilog_collect;
/* dir made (with its parents) if absent; NULL with err set when it cannot
 * be, or out of memory. */
struct ilog_collect *ilog_collect_new(const struct ilog_symbolize_opts *o, const char *dir,
				      char *err, size_t errlen);
/* 0, or -1 with err set when dir cannot be written or out of memory. */
int ilog_collect_add(struct ilog_collect *c, const struct ilog_mapping *m, char *err, size_t errlen);
/* What was copied, found there or not collected so far. */
const struct ilog_collect_stats *ilog_collect_stats(const struct ilog_collect *c);
void ilog_collect_free(struct ilog_collect *c);

#endif
