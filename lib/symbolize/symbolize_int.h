/* SPDX-License-Identifier: MIT */
/*
 * Internal to lib/symbolize/: what its files share beyond the public
 * ingero/symbolize.h (tables and pools are the base layer's, ingero/vec.h).
 */
#ifndef ILOG_SYMBOLIZE_INT_H
#define ILOG_SYMBOLIZE_INT_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/symbolize.h"
#include "ingero/vec.h"

/* Length of a recorded path without the " (deleted)" that /proc/PID/maps
 * appends to files unlinked since they were mapped. */
static inline size_t sym_path_len(const char *path, size_t n)
{
	static const char deleted[] = " (deleted)";
	const size_t k = sizeof(deleted) - 1;
	return n > k && !memcmp(path + n - k, deleted, k) ? n - k : n;
}

/*
 * The symbolizer's state, shared by symbolize.c (answering addresses) and
 * files.c (finding each module's file); a module's frames, symbols and
 * function index (struct sym_frame, sym_entry, elf_sym, cu_fns) are
 * symbolize.c's alone.
 */
#define MAX_BUILD_ID 64

struct sym_frame;
struct sym_entry;
struct elf_sym;
struct cu_fns;

struct sym_module {
	struct ilog_symbolizer *s;
	const char *path;             /* first recorded path (pool) */
	uint8_t bid[MAX_BUILD_ID];
	uint32_t nbid;
	int state;                    /* 0 not opened, 1 ready, -1 unusable */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	GElf_Addr bias;
	GElf_Phdr *loads;
	unsigned nloads;
	const char *file;             /* the file in use (pool) */
	int dwarf;                    /* 0 not checked, 1 usable, -1 none or unreadable */
	Dwarf *dw;
	int reported_scopes;
	struct ilog_hmap cache;        /* (address, ret) -> entries[] */
	struct ilog_hmap cuidx;        /* (CU DIE offset, 0) -> cus[] */
	struct cu_fns *cus;
	uint32_t ncus, capcus;
	struct ilog_hmap names;        /* (DIE offset, 0: declaration's name, 1: a
				       * function's, 2: has a linkage name) -> s->names[] */
	struct ilog_hmap paths;        /* (line table file name, CU offset) -> s->names[] */
	struct elf_sym *syms;         /* built on first use */
	uint32_t nsyms;
	int syms_built;
};

struct ilog_symbolizer {
	const struct ilog_symbolize_opts *o;
	const char **dirs;            /* debug dirs, then the system one */
	unsigned ndirs;
	struct ilog_strpool pool;
	struct sym_module **mods;
	uint32_t nmods, capmods;
	struct ilog_hmap modidx;       /* (hash of build-id or path, length) -> mods[] */
	struct ilog_hmap demangled;    /* (interned mangled name, 0) -> names[] */
	struct sym_frame *frames;
	uint32_t nframes, capframes;
	struct sym_entry *entries;
	uint32_t nentries, capentries;
	const char **names;           /* strings remembered (memo()) */
	uint32_t nnames, capnames;
	char *sysdebug;
};

/* symbolize.c: a warning or note through opts.report, if any. */
void ilog_sym_report(struct ilog_symbolizer *s, enum ilog_sym_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* files.c: does elf have a section `name` with contents? */
int ilog_sym_has_section(Elf *elf, const char *name);

/* files.c: the module of a mapping (one per build-id, or per path without
 * one), made if new, not yet opened (state 0); NULL out of memory. */
struct sym_module *ilog_sym_module_for(struct ilog_symbolizer *s, const struct ilog_mapping *mp);

/* files.c: pick m's file for the mapped path (lookup order in
 * lib/include/ingero/symbolize.h) and set up libdwfl on it; state 1 ready,
 * -1 unusable (reported). */
void ilog_sym_module_open(struct ilog_symbolizer *s, struct sym_module *m, const char *path);

/*
 * files.c: is file an ELF file with build-id bid (any, when nbid
 * is 0), whole (PT_LOAD bytes present) when asked?  1 yes, 0 no such
 * file, -1 rejected with the reason ("FILE: problem") in why.
 */
int ilog_sym_check_file(const char *file, const uint8_t *bid, uint32_t nbid, int whole,
			char *why, size_t whylen);

#endif
