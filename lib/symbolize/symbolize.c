// SPDX-License-Identifier: MIT
/*
 * The symbolizer (lib/include/ingero/symbolize.h): answers (file, address)
 * from a module's symbol tables and DWARF through libdwfl, once files.c
 * has found the module's file by build-id.  libdw is the one well-kept
 * DWARF reader in Debian; writing our own would mean line programs, DWARF 5
 * forms, abbreviation tables and inline trees for every compiler in use,
 * and libdwfl already picks .symtab over .dynsym and fetches separate debug
 * files through a callback that lets us decide where to look.
 *
 * One Dwfl per file, each at bias 0, so addresses are the file's own
 * (module_off) and files never overlap.  Answers are cached per file and
 * address, so a library mapped by many processes is resolved once.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include "ingero/symbolize.h"
#include "ingero/vec.h"
#include "symbolize_int.h"

/* libstdc++'s demangler (the Itanium C++ ABI entry point, C linkage). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define MAX_INLINE 64       /* frames kept for one ip */

struct sym_frame {
	const char *function, *file;
	uint64_t sym_off;
	uint32_t line;
};

struct sym_entry { uint32_t first, n; };

/* An ELF symbol in a module's table, sorted by address (elf_syms()). */
struct elf_sym {
	uint64_t lo, size;            /* libdwfl's addresses (bias included) */
	uint64_t maxend;              /* max lo + size of this and all before */
	uint64_t sized_end;           /* the same over sized symbols only */
	uint64_t sec_end;             /* a symbol without size: its section's end */
	const char *raw;              /* the ELF string (libelf's memory) */
	const char *name;             /* demangled (pool), NULL until asked */
	uint32_t idx;                 /* in the symbol table */
	uint8_t rank;                 /* 2 global, 1 weak, 0 local */
};

/* A CU's functions by address: each concrete subprogram's ranges, sorted,
 * so finding the function at an address is a binary search instead of a
 * walk over the CU's DIEs (dwarf_getscopes), which dominated the cost. */
struct cu_fn {
	uint64_t lo, hi;
	Dwarf_Off die;
};

/* A namespace, class or function of a CU: its DIE and its children's
 * offsets, the C++ scope its children are in ("ns::Class::", pool; NULL:
 * not known, a function whose children were not walked), and the scope
 * it is in (an index, -1 none). */
struct cu_scope {
	Dwarf_Off lo, hi;
	const char *prefix;
	int32_t up;
};

struct cu_fns {
	struct cu_fn *v;
	uint32_t n, cap;
	int deep;                     /* nested functions indexed too */
	struct cu_scope *sc;          /* in DIE order, found on the same walk */
	uint32_t nsc, capsc;
};

void ilog_sym_report(struct ilog_symbolizer *s, enum ilog_sym_level lvl, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	if (!s->o->report)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->o->report(s->o->report_arg, lvl, msg);
}

struct ilog_symbolizer *ilog_symbolizer_new(const struct ilog_symbolize_opts *o)
{
	struct ilog_symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->o = o;
	s->dirs = calloc(o->ndebug_dirs + 1, sizeof(*s->dirs));
	if (!s->dirs) {
		free(s);
		return NULL;
	}
	for (unsigned i = 0; i < o->ndebug_dirs; i++)
		s->dirs[s->ndirs++] = o->debug_dirs[i];
	if (!o->no_system_debug) {
		const char *root = o->sysroot && *o->sysroot ? o->sysroot : "";
		if (asprintf(&s->sysdebug, "%s/usr/lib/debug", root) < 0) {
			free(s->dirs);
			free(s);
			return NULL;
		}
		s->dirs[s->ndirs++] = s->sysdebug;
	}
	elf_version(EV_CURRENT);
	return s;
}

void ilog_symbolizer_free(struct ilog_symbolizer *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nmods; i++) {
		struct sym_module *m = s->mods[i];
		if (m->dwfl)
			dwfl_end(m->dwfl);
		free(m->loads);
		free(m->syms);
		ilog_hmap_free(&m->cache);
		ilog_hmap_free(&m->cuidx);
		ilog_hmap_free(&m->names);
		ilog_hmap_free(&m->paths);
		for (uint32_t k = 0; k < m->ncus; k++) {
			free(m->cus[k].v);
			free(m->cus[k].sc);
		}
		free(m->cus);
		free(m);
	}
	free(s->mods);
	ilog_hmap_free(&s->modidx);
	ilog_hmap_free(&s->demangled);
	ilog_strpool_free(&s->pool);
	free(s->frames);
	free(s->entries);
	free(s->names);
	free(s->dirs);
	free(s->sysdebug);
	free(s);
}

/* ---- answering addresses ---- */

/* Strings remembered per key in h; a miss is NULL. */
static const char *memo_get(const struct ilog_symbolizer *s, const struct ilog_hmap *h,
			    uint64_t a, uint64_t b)
{
	uint64_t *v = ilog_hmap_get(h, a, b);
	return v ? s->names[*v] : NULL;
}

/* Remember v (NULL: nothing, and nothing remembered); returns v. */
static const char *memo_put(struct ilog_symbolizer *s, struct ilog_hmap *h, uint64_t a,
			    uint64_t b, const char *v)
{
	if (!v)
		return NULL;
	if (ilog_grow((void **)&s->names, &s->capnames, s->nnames, sizeof(*s->names), 256))
		return v;
	s->names[s->nnames] = v;
	if (!ilog_hmap_set(h, a, b, s->nnames))
		s->nnames++;
	return v;
}

/* The demangled name (pool), once per distinct mangled name: a C++
 * function's ELF symbol and its DWARF linkage name are the same string. */
static const char *demangle(struct ilog_symbolizer *s, const char *name)
{
	if (!name)
		return "";
	const char *raw = ilog_strpool_intern(&s->pool, name, strlen(name));
	if (!raw || raw[0] != '_' || raw[1] != 'Z')
		return raw;
	const char *r = memo_get(s, &s->demangled, (uintptr_t)raw, 0);
	if (r)
		return r;
	int status = -1;
	char *d = __cxa_demangle(raw, NULL, NULL, &status);
	r = d && status == 0 ? ilog_strpool_intern(&s->pool, d, strlen(d)) : raw;
	free(d);
	return memo_put(s, &s->demangled, (uintptr_t)raw, 0, r);
}

/* The DIE a function's name lives on: the abstract origin of an inlined
 * or out-of-line instance, the declaration a definition specifies. */
static void die_origin(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	*out = *die;
	for (int i = 0; i < 8; i++) {
		Dwarf_Die next;
		if ((!dwarf_attr(out, DW_AT_abstract_origin, &a) &&
		     !dwarf_attr(out, DW_AT_specification, &a)) || !dwarf_formref_die(&a, &next))
			break;
		*out = next;
	}
}

/* Namespaces and classes around a C++ DIE, as "ns::Class::" into buf:
 * from the scopes its CU's function index met, else (a DIE of another
 * unit) libdw's walk from the unit's root. */
static size_t cxx_scope(struct sym_module *m, Dwarf_Die *cu, Dwarf_Die *decl, char *buf,
			size_t cap)
{
	Dwarf_Die dcu;
	uint64_t *v = ilog_hmap_get(&m->cuidx, dwarf_dieoffset(cu), 0);
	if (v && dwarf_diecu(decl, &dcu, NULL, NULL) &&
	    dwarf_dieoffset(&dcu) == dwarf_dieoffset(cu)) {
		const struct cu_fns *f = &m->cus[*v];
		Dwarf_Off off = dwarf_dieoffset(decl);
		uint32_t lo = 0, hi = f->nsc; /* the first scope starting after off */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (f->sc[mid].lo < off)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* scopes come in DIE order: the last one starting before off,
		 * or the nearest scope around it that holds off, is innermost */
		int32_t k = (int32_t)lo - 1;
		while (k >= 0 && off >= f->sc[k].hi)
			k = f->sc[k].up;
		const char *p = k >= 0 ? f->sc[k].prefix : "";
		if (p)
			return (size_t)snprintf(buf, cap, "%s", p) < cap ? strlen(buf) : 0;
	}
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes_die(decl, &scopes);
	size_t len = 0;
	buf[0] = 0;
	for (int i = n - 1; i >= 1; i--) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_namespace && tag != DW_TAG_class_type &&
		    tag != DW_TAG_structure_type && tag != DW_TAG_union_type)
			continue;
		const char *nm = dwarf_diename(&scopes[i]);
		if (!nm && tag != DW_TAG_namespace)
			continue; /* an unnamed class (a lambda's closure): no name to give */
		int k = snprintf(buf + len, cap - len, "%s::", nm ? nm : "(anonymous namespace)");
		if (k < 0 || (size_t)k >= cap - len) {
			buf[len] = 0;
			break;
		}
		len += (size_t)k;
	}
	free(scopes);
	return len;
}

/* A function DIE's source-level name: the linkage name demangled (C++
 * scope, template arguments and parameters), else DW_AT_name, which C++
 * compilers leave unqualified for functions with internal linkage, so
 * the enclosing namespaces and classes are added. */
static const char *die_name_uncached(struct ilog_symbolizer *s, struct sym_module *m,
				     Dwarf_Die *die, Dwarf_Die *decl, Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	int lang = dwarf_srclang(cu);
	/* C has no linkage names to look for (each look follows the
	 * abstract origin and specification chain to its end) */
	int c = lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 ||
		lang == DW_LANG_C11;
	if (!c && (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
		   dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a)))
		n = dwarf_formstring(&a);
	if (n)
		return demangle(s, n);
	if (!dwarf_attr_integrate(die, DW_AT_name, &a) || !(n = dwarf_formstring(&a)))
		return NULL;
	if (lang != DW_LANG_C_plus_plus && lang != DW_LANG_C_plus_plus_03 &&
	    lang != DW_LANG_C_plus_plus_11 && lang != DW_LANG_C_plus_plus_14)
		return demangle(s, n);
	char q[1024];
	size_t len = cxx_scope(m, cu, decl, q, sizeof(q));
	snprintf(q + len, sizeof(q) - len, "%s", n);
	return ilog_strpool_intern(&s->pool, q, strlen(q));
}

/* The name, once per function: inlined instances and the out-of-line
 * copy share their declaration DIE, and each DIE asked about remembers
 * the answer. */
static const char *die_name(struct ilog_symbolizer *s, struct sym_module *m, Dwarf_Die *die,
			    Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	const char *n = memo_get(s, &m->names, off, 1);
	if (n)
		return n;
	Dwarf_Die decl;
	die_origin(die, &decl);
	Dwarf_Off key = dwarf_dieoffset(&decl);
	if (!(n = memo_get(s, &m->names, key, 0)))
		n = memo_put(s, &m->names, key, 0, die_name_uncached(s, m, die, &decl, cu));
	return memo_put(s, &m->names, off, 1, n);
}

/* fn and file are the pool's (or NULL file: none). */
static int push_frame(struct ilog_symbolizer *s, const char *fn, const char *file,
		      uint32_t line, uint64_t sym_off)
{
	if (ilog_grow((void **)&s->frames, &s->capframes, s->nframes, sizeof(*s->frames), 1024))
		return -1;
	if (!fn)
		return -1;
	s->frames[s->nframes++] = (struct sym_frame){ fn, file ? file : "", sym_off, line };
	return 0;
}

/* A source path as the compiler saw it: relative ones are relative to
 * the CU's compilation directory (DWARF 5 file 0 and older line tables
 * leave it implicit), as addr2line and debuggers show them.  The pool's
 * copy, remembered per line-table name; NULL for none or out of memory. */
static const char *full_path(struct ilog_symbolizer *s, struct sym_module *m, Dwarf_Die *cu,
			     const char *file)
{
	if (!file)
		return NULL;
	Dwarf_Off cuoff = dwarf_dieoffset(cu);
	const char *r = memo_get(s, &m->paths, (uintptr_t)file, cuoff);
	if (r)
		return r;
	Dwarf_Attribute a;
	const char *dir;
	char buf[4096];
	if (file[0] != '/' && dwarf_attr(cu, DW_AT_comp_dir, &a) && (dir = dwarf_formstring(&a)) &&
	    *dir) {
		snprintf(buf, sizeof(buf), "%s/%s", dir, file);
		r = ilog_strpool_intern(&s->pool, buf, strlen(buf));
	} else {
		r = ilog_strpool_intern(&s->pool, file, strlen(file));
	}
	return memo_put(s, &m->paths, (uintptr_t)file, cuoff, r);
}

/* The DWARF frames at `look` (innermost first) into s->frames: each
 * inlined instance names the inlined function, and the frame outside it
 * sits at the instance's call site.  Returns the count, -1 out of memory. */
static int cmp_fn(const void *a, const void *b)
{
	const struct cu_fn *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int add_fn(struct cu_fns *f, uint32_t *cap, uint64_t lo, uint64_t hi, Dwarf_Off die)
{
	if (ilog_grow((void **)&f->v, cap, f->n, sizeof(*f->v), 64))
		return -1;
	f->v[f->n++] = (struct cu_fn){ lo, hi, die };
	return 0;
}

/* A subprogram's code ranges, from one pass over its attributes (the
 * usual low_pc/high_pc pair; DW_AT_ranges through dwarf_ranges). */
struct pc_attrs {
	Dwarf_Addr lo, hi;
	int has_lo, has_hi, hi_is_off, ranges;
};

static int pc_attr(Dwarf_Attribute *a, void *arg)
{
	struct pc_attrs *p = arg;
	Dwarf_Word w;
	switch (dwarf_whatattr(a)) {
	case DW_AT_low_pc:
		p->has_lo = !dwarf_formaddr(a, &p->lo);
		break;
	case DW_AT_high_pc: /* an address, or (DWARF 4+) a length from low_pc */
		if (!dwarf_formaddr(a, &p->hi)) {
			p->has_hi = 1;
		} else if (!dwarf_formudata(a, &w)) {
			p->hi = w;
			p->has_hi = p->hi_is_off = 1;
		}
		break;
	case DW_AT_ranges:
		p->ranges = 1;
		break;
	}
	return DWARF_CB_OK;
}

static int add_ranges(Dwarf_Die *c, struct cu_fns *f, uint32_t *cap)
{
	struct pc_attrs p = { 0 };
	Dwarf_Addr base, lo, hi;
	if (dwarf_getattrs(c, pc_attr, &p, 0) < 0)
		return 0;
	if (!p.ranges) {
		if (!p.has_lo || !p.has_hi)
			return 0;
		hi = p.hi_is_off ? p.lo + p.hi : p.hi;
		return hi > p.lo ? add_fn(f, cap, p.lo, hi, dwarf_dieoffset(c)) : 0;
	}
	for (ptrdiff_t off = 0; (off = dwarf_ranges(c, off, &base, &lo, &hi)) > 0;)
		if (hi > lo && add_fn(f, cap, lo, hi, dwarf_dieoffset(c)))
			return -1;
	return 0;
}

/* The scope a namespace or class gives its children (an unnamed class,
 * a lambda's closure, has no name to give). */
static const char *child_prefix(struct ilog_symbolizer *s, Dwarf_Die *c, int tag,
				const char *prefix)
{
	const char *nm = dwarf_diename(c);
	if (!nm && tag != DW_TAG_namespace)
		return prefix;
	char buf[1024];
	int k = snprintf(buf, sizeof(buf), "%s%s::", prefix, nm ? nm : "(anonymous namespace)");
	if (k < 0 || (size_t)k >= sizeof(buf))
		return prefix;
	return ilog_strpool_intern(&s->pool, buf, (size_t)k);
}

/* Concrete functions under parent: CU level, inside namespaces and
 * classes, and (deep) nested in functions (local classes, lambdas); the
 * namespaces and classes met on the way go in f->sc.  end: the offset
 * after parent's last child. */
static int index_fns(struct ilog_symbolizer *s, Dwarf_Die *parent, struct cu_fns *f,
		     uint32_t *cap, int depth, int deep, const char *prefix, Dwarf_Off end,
		     int32_t up)
{
	Dwarf_Die c, next;
	if (depth > 16 || dwarf_child(parent, &c) != 0)
		return 0;
	for (int more = 1; more; c = next) {
		more = dwarf_siblingof(&c, &next) == 0;
		Dwarf_Off cend = more ? dwarf_dieoffset(&next) : end;
		int tag = dwarf_tag(&c);
		int scope = tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			    tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
		int inner = tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block;
		if (tag == DW_TAG_subprogram && add_ranges(&c, f, cap))
			return -1;
		if (!scope && !inner)
			continue;
		const char *p2 = scope ? child_prefix(s, &c, tag, prefix) : deep ? prefix : NULL;
		if ((scope && !p2) ||
		    ilog_grow((void **)&f->sc, &f->capsc, f->nsc, sizeof(*f->sc), 16))
			return -1;
		int32_t me = (int32_t)f->nsc;
		f->sc[f->nsc++] = (struct cu_scope){ dwarf_dieoffset(&c), cend, p2, up };
		if ((scope || deep) && index_fns(s, &c, f, cap, depth + 1, deep, p2, cend, me))
			return -1;
	}
	return 0;
}

/* The innermost function of f containing pc: its DIE offset, or 0. */
static Dwarf_Off fn_find(const struct cu_fns *f, Dwarf_Addr pc)
{
	uint32_t lo = 0, hi = f->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (f->v[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* nested functions lie inside their parent's range: the one that
	 * starts last before pc and still covers it is the innermost */
	for (uint32_t k = lo; k-- > 0;) {
		if (pc < f->v[k].hi)
			return f->v[k].die;
		if (lo - k > 64)
			break;
	}
	return 0;
}

/* (Re)build f: the functions outside other functions first, which is
 * most of a CU's code for a fraction of its DIEs; with deep, also those
 * nested in functions, whose code lies outside their parent's. */
static int fn_index(struct ilog_symbolizer *s, Dwarf_Die *cu, struct cu_fns *f, int deep)
{
	uint32_t cap = f->cap;
	f->n = 0;
	f->nsc = 0;
	f->deep = deep;
	if (index_fns(s, cu, f, &cap, 0, deep, "", (Dwarf_Off)-1, -1))
		return -1;
	f->cap = cap;
	qsort(f->v, f->n, sizeof(*f->v), cmp_fn);
	return 0;
}

/* The innermost concrete function containing pc in this CU, by its index
 * (built on first use); 0 and *fn set, or -1 when none. */
static int fn_at(struct sym_module *m, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *fn)
{
	Dwarf_Off cuoff = dwarf_dieoffset(cu);
	uint64_t *v = ilog_hmap_get(&m->cuidx, cuoff, 0);
	struct cu_fns *f;
	if (v) {
		f = &m->cus[*v];
	} else {
		if (ilog_grow((void **)&m->cus, &m->capcus, m->ncus, sizeof(*m->cus), 16))
			return -1;
		f = &m->cus[m->ncus];
		*f = (struct cu_fns){ 0 };
		if (fn_index(m->s, cu, f, 0) || ilog_hmap_set(&m->cuidx, cuoff, 0, m->ncus)) {
			free(f->v);
			free(f->sc);
			return -1;
		}
		m->ncus++;
	}
	Dwarf_Off die = fn_find(f, pc);
	if (!die && !f->deep) {
		if (fn_index(m->s, cu, f, 1))
			return -1;
		die = fn_find(f, pc);
	}
	return die && dwarf_offdie(m->dw, die, fn) ? 0 : -1;
}

/* fn and the inlined instances inside it that contain pc, outermost
 * first, into chain[0..max).  Returns the count. */
static int inline_chain(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die *chain, int max)
{
	int n = 0;
	Dwarf_Die cur = *fn;
	chain[n++] = cur;
	for (int guard = 0; guard < 256; guard++) {
		Dwarf_Die c;
		int found = 0;
		if (dwarf_child(&cur, &c) == 0) {
			do {
				int tag = dwarf_tag(&c);
				if ((tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) &&
				    dwarf_haspc(&c, pc) == 1) {
					if (tag == DW_TAG_inlined_subroutine && n < max)
						chain[n++] = c;
					cur = c;
					found = 1;
					break;
				}
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		if (!found)
			break;
	}
	return n;
}

/* The DWARF frames at `look` (innermost first) into s->frames: each
 * inlined instance names the inlined function, and the frame outside it
 * sits at the instance's call site.  Returns the count, -1 out of memory. */
static int has_linkage_name(struct ilog_symbolizer *s, struct sym_module *m, Dwarf_Die *die)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	const char *v = memo_get(s, &m->names, off, 2);
	if (!v) {
		Dwarf_Attribute a;
		v = dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
		    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a) ? "1" : "";
		memo_put(s, &m->names, off, 2, v);
	}
	return *v;
}

static int dwarf_frames(struct ilog_symbolizer *s, struct sym_module *m, Dwarf_Die *cu,
			Dwarf_Addr pc, GElf_Addr look, const char *elfraw, const char *elfname,
			uint64_t sym_off)
{
	Dwarf_Die fn, chain[MAX_INLINE];
	uint32_t first = s->nframes;
	int nc = 0, have = fn_at(m, cu, pc, &fn) == 0;
	if (!have) {
		/* not where the index looks (an unusual DIE nesting): the
		 * slow way, scopes from the CU down */
		Dwarf_Die *scopes = NULL;
		int n = dwarf_getscopes(cu, pc, &scopes);
		for (int i = 0; i < n && !have; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram) {
				fn = scopes[i];
				have = 1;
			}
		free(scopes);
		if (n < 0 && !m->reported_scopes) {
			m->reported_scopes = 1;
			ilog_sym_report(s, ILOG_SYM_WARN, "%s: cannot read DWARF at 0x%llx: %s; such frames from the symbol table only",
					m->file, (unsigned long long)look, dwarf_errmsg(-1));
		}
	}
	if (have)
		nc = inline_chain(&fn, pc, chain, MAX_INLINE);
	const char *file = NULL;
	int line = 0, rc = 0;
	Dwfl_Line *ln = dwfl_module_getsrc(m->mod, look + m->bias);
	if (ln)
		file = full_path(s, m, cu, dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL));
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	for (int i = nc - 1; i >= 0; i--) {
		const char *name = die_name(s, m, &chain[i], cu);
		uint32_t l = line > 0 ? (uint32_t)line : 0;
		if (i == 0) {
			/* the physical function: DWARF without a linkage name
			 * (internal linkage) leaves C++ names without parameters
			 * or closure types, which the mangled ELF symbol has */
			if (!name || (!strncmp(elfraw, "_Z", 2) && !has_linkage_name(s, m, &chain[0])))
				name = elfname;
			rc = push_frame(s, name, file, l, sym_off);
			break;
		}
		if ((rc = push_frame(s, name ? name : "", file, l, 0)))
			break;
		Dwarf_Attribute at;
		Dwarf_Word w;
		file = NULL;
		line = 0;
		if (dwarf_attr(&chain[i], DW_AT_call_line, &at) && !dwarf_formudata(&at, &w))
			line = (int)w;
		if (dwarf_attr(&chain[i], DW_AT_call_file, &at) && !dwarf_formudata(&at, &w) &&
		    (files || !dwarf_getsrcfiles(cu, &files, &nfiles)) && w < nfiles)
			file = full_path(s, m, cu, dwarf_filesrc(files, w, NULL, NULL));
	}
	/* a line but no function DIE around it (assembly): the ELF name */
	if (!rc && s->nframes == first && file)
		rc = push_frame(s, elfname, file, line > 0 ? (uint32_t)line : 0, sym_off);
	return rc ? -1 : (int)(s->nframes - first);
}

static int unit_tag(int tag)
{
	return tag == DW_TAG_compile_unit || tag == DW_TAG_partial_unit ||
	       tag == DW_TAG_type_unit || tag == DW_TAG_skeleton_unit;
}

/* Once per module: is there DWARF, and do its unit headers and unit DIEs
 * read?  Damaged DWARF is reported and the module's frames come from the
 * symbol table alone, rather than from whatever part happens to parse. */
static void dwarf_check(struct ilog_symbolizer *s, struct sym_module *m)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(m->mod, &bias);
	const char *dbg = NULL;
	m->dwarf = -1;
	dwfl_module_info(m->mod, NULL, NULL, NULL, NULL, NULL, NULL, &dbg);
	if (!dw) {
		/* no DWARF is normal (system libraries without debug packages);
		 * DWARF that is there but does not open is worth a warning */
		char msg[256];
		GElf_Addr eb;
		snprintf(msg, sizeof(msg), "%s", dwfl_errmsg(-1));
		Elf *e = dwfl_module_getelf(m->mod, &eb);
		if (dbg || (e && ilog_sym_has_section(e, ".debug_info")))
			ilog_sym_report(s, ILOG_SYM_WARN,
					"%s: cannot read DWARF: %s; functions from the symbol table only",
					dbg ? dbg : m->file, msg);
		else
			ilog_sym_report(s, ILOG_SYM_INFO, "%s: no debug info; functions from the symbol table only",
					m->file);
		return;
	}
	Dwarf_Off off = 0, next;
	size_t hsize;
	int k;
	while ((k = dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL,
				    NULL)) == 0) {
		Dwarf_Die cudie;
		if (!dwarf_offdie(dw, off + hsize, &cudie) || !unit_tag(dwarf_tag(&cudie))) {
			k = -1;
			break;
		}
		off = next;
	}
	if (k < 0) {
		ilog_sym_report(s, ILOG_SYM_WARN,
				"%s: cannot read DWARF (unit at offset 0x%llx is damaged); functions from the symbol table only",
				dbg ? dbg : m->file, (unsigned long long)off);
		return;
	}
	m->dwarf = 1;
	m->dw = dw;
}

/*
 * The module's symbol table (.symtab, else .dynsym: libdwfl picks) as an
 * array sorted by address, built once, so an address is a binary search
 * instead of dwfl_module_addrinfo's walk over every symbol, and each name
 * is demangled once.  Undefined, absolute, section, file and TLS symbols
 * name no code and are left out.  Symbols at one address sort worst
 * first: local, weak, global, and later in the table before earlier.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->rank != y->rank)
		return (int)x->rank - (int)y->rank;
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

static uint64_t section_end(Elf *elf, GElf_Word shndx, Dwarf_Addr bias)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf ? elf_getscn(elf, shndx) : NULL;
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	return sh.sh_addr + sh.sh_size + bias;
}

static int elf_syms(struct sym_module *m)
{
	m->syms_built = 1;
	int n = dwfl_module_getsymtab(m->mod);
	if (n <= 1)
		return 0;
	if (!(m->syms = malloc((size_t)n * sizeof(*m->syms))))
		return -1;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name = dwfl_module_getsym_info(m->mod, i, &sym, &addr, &shndx, &elf, &bias);
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    shndx == (GElf_Word)-1 || type == STT_SECTION || type == STT_FILE ||
		    type == STT_TLS)
			continue;
		m->syms[m->nsyms++] = (struct elf_sym){
			.lo = addr, .size = sym.st_size, .raw = name, .idx = (uint32_t)i,
			.sec_end = sym.st_size ? 0 : section_end(elf, shndx, bias),
			.rank = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0,
		};
	}
	qsort(m->syms, m->nsyms, sizeof(*m->syms), cmp_sym);
	uint64_t mx = 0, smx = 0;
	for (uint32_t i = 0; i < m->nsyms; i++) {
		struct elf_sym *e = &m->syms[i];
		if (e->lo + e->size > mx)
			mx = e->lo + e->size;
		if (e->size && e->lo + e->size > smx)
			smx = e->lo + e->size;
		e->maxend = mx;
		e->sized_end = smx;
	}
	return 0;
}

/*
 * The symbol for x: of the symbols that contain it, the one starting
 * closest below it (at one address: global, weak, local, then the first
 * in the table); else the closest symbol without a size (an assembly
 * label) below x, when it is in x's section and no sized symbol ends
 * between it and x.  NULL if none.
 */
static struct elf_sym *sym_at(struct sym_module *m, uint64_t x)
{
	uint32_t lo = 0, hi = m->nsyms; /* first symbol above x */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (m->syms[mid].lo <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint32_t k = lo; k-- > 0 && m->syms[k].maxend > x;)
		if (x - m->syms[k].lo < m->syms[k].size)
			return &m->syms[k];
	if (!lo)
		return NULL;
	uint64_t floor = m->syms[lo - 1].sized_end;
	for (uint32_t k = lo; k-- > 0 && m->syms[k].lo >= floor;)
		if (!m->syms[k].size)
			return x < m->syms[k].sec_end ? &m->syms[k] : NULL;
	return NULL;
}

/* Frames for address a (the file's own address space) into s->frames,
 * innermost first.  Returns the count, -1 out of memory. */
static int resolve(struct ilog_symbolizer *s, struct sym_module *m, GElf_Addr a, int ret)
{
	GElf_Addr look = ret && a ? a - 1 : a;
	if (!m->syms_built && elf_syms(m))
		return -1;
	struct elf_sym *es = sym_at(m, look + m->bias);
	const char *sname = es ? es->raw : NULL;
	if (es && !es->name && !(es->name = demangle(s, es->raw)))
		return -1;
	const char *elfname = es ? es->name : "";
	uint64_t sym_off = es ? look + m->bias - es->lo + (a - look) : 0;
	uint32_t first = s->nframes;
	Dwarf_Addr dbias = 0;
	if (!m->dwarf)
		dwarf_check(s, m);
	Dwarf_Die *cu = m->dwarf > 0 ? dwfl_module_addrdie(m->mod, look + m->bias, &dbias) : NULL;
	if (cu && dwarf_frames(s, m, cu, look + m->bias - dbias, look, sname ? sname : "", elfname,
			       sym_off) < 0)
		return -1;
	if (s->nframes == first && push_frame(s, elfname, NULL, 0, sym_off))
		return -1;
	return (int)(s->nframes - first);
}

/* File offset -> the file's own address, through its PT_LOAD headers. */
static int to_vaddr(const struct sym_module *m, uint64_t foff, GElf_Addr *a)
{
	const GElf_Phdr *best = NULL;
	for (unsigned i = 0; i < m->nloads; i++) {
		const GElf_Phdr *p = &m->loads[i];
		if (foff >= p->p_offset && foff < p->p_offset + p->p_filesz) {
			best = p;
			break;
		}
		/* mappings start on page boundaries: a segment's first page
		 * can begin before p_offset */
		if (foff >= (p->p_offset & ~(uint64_t)0xfff) && foff < p->p_offset + p->p_memsz &&
		    (!best || p->p_offset > best->p_offset))
			best = p;
	}
	if (!best)
		return -1;
	*a = foff - best->p_offset + best->p_vaddr;
	return 0;
}

int ilog_symbolizer_lookup(struct ilog_symbolizer *s, const struct ilog_mapping *mp,
			   uint64_t ip, int ret, struct ilog_symbol *out, unsigned max)
{
	if (!max)
		return 0;
	struct ilog_symbol base = {
		.pid = mp->pid, .ip = ip, .build_id = mp->build_id, .module = mp->path,
		.module_off = ip - mp->start + mp->offset, .function = ILOG_STR(""),
		.file = ILOG_STR(""),
	};
	out[0] = base;
	if (!mp->path.n || mp->path.p[0] != '/')
		return 1; /* anonymous memory, [vdso], [heap]: nothing to read */
	struct sym_module *m = ilog_sym_module_for(s, mp);
	if (!m)
		return -1;
	if (!m->state) {
		char path[4096];
		snprintf(path, sizeof(path), "%.*s", (int)mp->path.n, mp->path.p);
		ilog_sym_module_open(s, m, path);
	}
	if (m->state < 0)
		return 1;
	GElf_Addr a;
	if (to_vaddr(m, ip - mp->start + mp->offset, &a))
		return 1;
	out[0].module_off = a;
	uint64_t *v = ilog_hmap_get(&m->cache, a, (uint64_t)!!ret);
	struct sym_entry e;
	if (v) {
		e = s->entries[*v];
	} else {
		uint32_t first = s->nframes;
		int n = resolve(s, m, a, ret);
		if (n < 0)
			return -1;
		if (ilog_grow((void **)&s->entries, &s->capentries, s->nentries, sizeof(*s->entries), 1024))
			return -1;
		e = (struct sym_entry){ first, (uint32_t)n };
		s->entries[s->nentries] = e;
		if (ilog_hmap_set(&m->cache, a, (uint64_t)!!ret, s->nentries++))
			return -1;
	}
	unsigned k = 0;
	for (; k < e.n && k < max; k++) {
		const struct sym_frame *f = &s->frames[e.first + k];
		out[k] = base;
		out[k].module_off = a;
		out[k].function = ilog_str_c(f->function);
		out[k].file = ilog_str_c(f->file);
		out[k].line = f->line;
		out[k].sym_off = f->sym_off;
		out[k].inline_depth = k;
	}
	return (int)(k ? k : 1);
}
