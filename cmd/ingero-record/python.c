// SPDX-License-Identifier: MIT
/*
 * CPython support in the recorder.  Two halves around the kernel walker
 * (bpf/pywalk.bpf.h):
 *
 * Before: when a target process maps an interpreter -- libpython3.N.so*
 * (pyenv, conda, embedders) or an executable that defines _PyRuntime
 * itself (Debian's static /usr/bin/python3.11) -- find _PyRuntime and
 * PyCode_Type in the file's .dynsym/.symtab, relocate them by the
 * mapping's load bias, pick the struct layout of that minor version
 * (pyoffsets.h; a 3.13 interpreter's own _Py_DebugOffsets where it has
 * them), check it against the live process, and put it in `py_procs`.
 *
 * After: the walker sends each distinct Python stack once, as code object
 * addresses and instruction offsets.  For each code object not seen
 * before, read filename, qualified name, first line and line table with
 * process_vm_readv and write a pycode record, then the pystack record, so
 * a reader meets the pycode first (SPEC §7.3) and resolves lines offline
 * (lib/codec/pyline.c).  CPython reuses a freed code object's memory at once,
 * so an address alone does not name a code object: a uprobe on the
 * interpreter's code-object deallocator counts frees per address
 * (`py_code_gen`), the walker folds that count into the stack id, and
 * the recorder reads an object afresh for each count and keeps what it
 * read only if no free happened meanwhile.  A frame it cannot read so is
 * written with code 0: unknown, never another object's name.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ingero/cli.h"
#include "ingero/hash.h"
#include "ingero/vec.h"
#include "rec.h"
#include "python.h"
#include "pyoffsets.h"
#include "bpf/record.skel.h"

#define PY_MAX_STR 4096         /* characters kept of a file or function name */
#define PY_MAX_LINETABLE (1u << 20)

/* What one interpreter file offers (cached by device and inode). */
struct py_elf {
	uint64_t dev, ino;
	int has_runtime;
	uint64_t runtime, code_type;     /* symbol values (link-time addresses) */
	uint16_t version;                /* from Py_Version (3.11+), 0 if absent */
	int warned;
	int free_tried;                  /* the code-object free probe was tried */
	struct bpf_link *free_link;
	unsigned nseg;
	struct { uint64_t vaddr, off, filesz; int exec; } seg[16];
};

struct rec_pyproc {
	uint64_t start_ticks;            /* the process image this is about */
	uint32_t gen;
	int found;                       /* an interpreter is known and in py_procs */
	uint32_t serial;                 /* code-cache namespace of this image */
	uint64_t code_type;              /* &PyCode_Type in the process, 0 unknown */
	struct rec_py_layout L;
};

static struct py_elf *elfs;
static unsigned nelfs, capelfs;
static uint32_t next_serial = 1;
static uint64_t n_code_read, n_code_failed;

/* ---- code objects already written: (serial, address) -> fingerprint ---- */
struct code_ent {
	uint64_t code;
	uint64_t fp;                     /* 0: empty slot */
	uint32_t serial;
	uint32_t gen;                    /* code objects freed at this address before it */
};
static struct code_ent *codes;
static size_t ncodes, capcodes;

static size_t code_slot(uint32_t serial, uint64_t code, uint32_t gen)
{
	uint64_t h = (code ^ ((uint64_t)serial << 48) ^ ((uint64_t)gen << 32)) * ILOG_GOLDEN64;
	size_t i = (size_t)(h >> 20) & (capcodes - 1);
	while (codes[i].fp &&
	       (codes[i].code != code || codes[i].serial != serial || codes[i].gen != gen))
		i = (i + 1) & (capcodes - 1);
	return i;
}

static uint64_t code_get(uint32_t serial, uint64_t code, uint32_t gen)
{
	return capcodes ? codes[code_slot(serial, code, gen)].fp : 0;
}

static void code_put(uint32_t serial, uint64_t code, uint32_t gen, uint64_t fp)
{
	if ((ncodes + 1) * 2 > capcodes) {
		size_t cap = capcodes ? capcodes * 2 : 4096;
		struct code_ent *old = codes, *n = calloc(cap, sizeof(*n));
		if (!n)
			return;
		size_t oldcap = capcodes;
		codes = n;
		capcodes = cap;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].fp)
				codes[code_slot(old[i].serial, old[i].code, old[i].gen)] = old[i];
		free(old);
	}
	size_t i = code_slot(serial, code, gen);
	if (!codes[i].fp)
		ncodes++;
	codes[i] = (struct code_ent){ .code = code, .fp = fp, .serial = serial, .gen = gen };
}

/* ---- the interpreter file ---- */

static int sym_wanted(const char *name)
{
	return !strcmp(name, "_PyRuntime") || !strcmp(name, "PyCode_Type") ||
	       !strcmp(name, "Py_Version");
}

/* Py_Version's value: a const in a loaded segment of the file. */
static uint16_t read_py_version(int fd, const struct py_elf *e, uint64_t addr)
{
	for (unsigned i = 0; i < e->nseg; i++) {
		if (addr < e->seg[i].vaddr || addr + 4 > e->seg[i].vaddr + e->seg[i].filesz)
			continue;
		uint32_t v = 0;
		if (pread(fd, &v, sizeof(v), (off_t)(e->seg[i].off + addr - e->seg[i].vaddr)) != 4)
			return 0;
		return (uint16_t)(v >> 16);
	}
	return 0;
}

static void inspect_elf(const char *path, struct py_elf *pe)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t nph = 0;
	uint64_t py_version_sym = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph))
		goto out;
	for (size_t i = 0; i < nph && pe->nseg < 16; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
			pe->seg[pe->nseg].vaddr = ph.p_vaddr;
			pe->seg[pe->nseg].off = ph.p_offset;
			pe->seg[pe->nseg].filesz = ph.p_filesz;
			pe->seg[pe->nseg].exec = !!(ph.p_flags & PF_X);
			pe->nseg++;
		}
	}
	/* .dynsym first (always there for an exporting interpreter), then .symtab */
	for (int pass = 0; pass < 2 && !pe->has_runtime; pass++) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass == 0 ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize)
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = d ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t k = 0; k < n; k++) {
				GElf_Sym s;
				if (!gelf_getsym(d, (int)k, &s) || s.st_shndx == SHN_UNDEF ||
				    GELF_ST_TYPE(s.st_info) != STT_OBJECT)
					continue;
				const char *name = elf_strptr(e, sh.sh_link, s.st_name);
				if (!name || (name[0] != '_' && name[0] != 'P'))
					continue;
				if (!sym_wanted(name))
					continue;
				if (!strcmp(name, "_PyRuntime")) {
					pe->runtime = s.st_value;
					pe->has_runtime = 1;
				} else if (!strcmp(name, "PyCode_Type")) {
					pe->code_type = s.st_value;
				} else {
					py_version_sym = s.st_value;
				}
			}
		}
	}
	if (pe->has_runtime && py_version_sym)
		pe->version = read_py_version(fd, pe, py_version_sym);
out:
	if (e)
		elf_end(e);
	close(fd);
}

static struct py_elf *elf_info(const char *open_path)
{
	struct stat st;
	if (stat(open_path, &st))
		return NULL;
	for (unsigned i = 0; i < nelfs; i++)
		if (elfs[i].dev == st.st_dev && elfs[i].ino == st.st_ino)
			return &elfs[i];
	if (ilog_grow((void **)&elfs, &capelfs, nelfs, sizeof(*elfs), 16))
		return NULL;
	struct py_elf *pe = &elfs[nelfs++];
	memset(pe, 0, sizeof(*pe));
	pe->dev = st.st_dev;
	pe->ino = st.st_ino;
	inspect_elf(open_path, pe);
	return pe;
}

/* "3.N" in a file name (libpython3.10.so.1.0, python3.10): 0x030N, or 0. */
static uint16_t version_from_name(const char *path)
{
	const char *b = strrchr(path, '/'), *p;
	b = b ? b + 1 : path;
	if (!(p = strstr(b, "python3.")))
		return 0;
	char *end;
	unsigned long minor = strtoul(p + 8, &end, 10);
	if (end == p + 8 || minor > 99)
		return 0;
	return (uint16_t)(0x0300 | minor);
}

static const struct rec_py_layout *layout_for(uint16_t version)
{
	for (size_t i = 0; i < sizeof(rec_py_layouts) / sizeof(rec_py_layouts[0]); i++)
		if (rec_py_layouts[i].version == version)
			return &rec_py_layouts[i];
	return NULL;
}

/* ---- the process ---- */

static int read_mem(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static uint64_t read_ptr(uint32_t pid, uint64_t addr)
{
	uint64_t v = 0;
	return read_mem(pid, addr, &v, sizeof(v)) ? 0 : v;
}

static int u16_of(uint64_t v, uint16_t *out)
{
	if (v >= REC_PY_NONE)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

/*
 * 3.13: the interpreter's own description of itself (_PyRuntime starts
 * with _Py_DebugOffsets) replaces the table's numbers wherever it has
 * one.  -1 when the block is not there or not a 3.13 one, -2 for a
 * free-threaded build: its object headers differ from what this table and
 * the code-object probe assume for the fields the block does not cover
 * (PyTypeObject.tp_dealloc, the string state bits), and none was tested.
 */
static int apply_debug_offsets(uint32_t pid, uint64_t runtime, struct rec_py_layout *L)
{
	const struct rec_py_dbg313 *D = &rec_py_dbg313;
	uint8_t b[584];
	_Static_assert(sizeof(b) == 584, "3.13 _Py_DebugOffsets size");
	if (read_mem(pid, runtime, b, sizeof(b)) || memcmp(b, REC_PY_DBG_COOKIE, 8))
		return -1;
	/* where each number is in the block, and which layout entry it sets */
	const struct { uint16_t pos; size_t field; } m[] = {
#define DBG(f) { D->f, offsetof(struct rec_py_layout, f) }
		DBG(rt_interp_head), DBG(interp_next), DBG(interp_threads), DBG(ts_next),
		DBG(ts_interp), DBG(ts_frame), DBG(ts_thread_id), DBG(fr_back), DBG(fr_code),
		DBG(fr_instr), DBG(fr_owner), DBG(co_filename), DBG(co_name), DBG(co_qualname),
		DBG(co_linetable), DBG(co_firstlineno), DBG(co_code), DBG(ob_type),
		DBG(bytes_size), DBG(bytes_sval), DBG(str_state), DBG(str_length),
		DBG(ascii_size),
#undef DBG
	};
	uint64_t version, free_threaded;
	memcpy(&version, b + D->version, 8);
	memcpy(&free_threaded, b + 16, 8); /* right after cookie and version */
	if ((version >> 16) != 0x030d)
		return -1;
	if (free_threaded)
		return -2;
	struct rec_py_layout t = *L;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		uint64_t v;
		memcpy(&v, b + m[i].pos, 8);
		if (u16_of(v, (uint16_t *)((char *)&t + m[i].field)))
			return -1;
	}
	/* not described there: PyCompactUnicodeObject is PyASCIIObject plus
	 * utf8_length and utf8 */
	t.compact_size = (uint16_t)(t.ascii_size + 16);
	*L = t;
	return 0;
}

/* Does the live process agree with the layout?  A thread state's interp
 * points back at the interpreter whose list holds it.  Before the
 * interpreter is initialised there is nothing to compare: accepted. */
static int layout_plausible(uint32_t pid, uint64_t runtime, const struct rec_py_layout *L)
{
	uint64_t interp = read_ptr(pid, runtime + L->rt_interp_head);
	if (!interp)
		return 1;
	uint64_t t = read_ptr(pid, interp + L->interp_threads);
	if (!t)
		return 1;
	return read_ptr(pid, t + L->ts_interp) == interp;
}

/* Bytes of a frame the walker reads at once: up to its last field used. */
static unsigned frame_bytes(const struct rec_py_layout *L)
{
	unsigned n = 0;
	const uint16_t end[] = { L->fr_back + 8u, L->fr_code + 8u, L->fr_instr + 8u,
				 L->fr_owner != REC_PY_NONE ? L->fr_owner + 1u : 0u,
				 L->fr_is_entry != REC_PY_NONE ? L->fr_is_entry + 1u : 0u };
	for (size_t i = 0; i < sizeof(end) / sizeof(end[0]); i++)
		if (end[i] > n)
			n = end[i];
	return n;
}

static void push_proc(struct rec *r, uint32_t pid, uint64_t runtime, const struct rec_py_layout *L)
{
	struct rec_py_proc v = {
		.runtime = runtime, .version = L->version, .instr = L->instr,
		.owner_cstack = L->owner_cstack, .owner_generator = L->owner_generator,
		.rt_interp_head = L->rt_interp_head, .interp_next = L->interp_next,
		.interp_threads = L->interp_threads, .ts_next = L->ts_next,
		.ts_thread_id = L->ts_thread_id, .ts_frame = L->ts_frame,
		.cframe_current = L->cframe_current, .fr_back = L->fr_back, .fr_code = L->fr_code,
		.fr_instr = L->fr_instr, .fr_owner = L->fr_owner, .co_code = L->co_code,
		.co_firsttraceable = L->co_firsttraceable, .fr_size = (uint16_t)frame_bytes(L),
		.fr_is_entry = L->fr_is_entry,
	};
	if (bpf_map__update_elem(r->skel->maps.py_procs, &pid, sizeof(pid), &v, sizeof(v), BPF_ANY)) {
		ilog_warnf("pid %u: cannot hand the interpreter to the frame walker: %s", pid,
			   strerror(errno));
		return;
	}
	/* after the update: threads that found no interpreter look again */
	__atomic_fetch_add(&r->skel->bss->py_gen, 1, __ATOMIC_SEQ_CST);
}

/* The file offset of a link-time code address, 0 if no executable
 * segment holds it (then it is no function to probe). */
static uint64_t code_offset(const struct py_elf *pe, uint64_t vaddr)
{
	for (unsigned i = 0; i < pe->nseg; i++)
		if (pe->seg[i].exec && vaddr >= pe->seg[i].vaddr &&
		    vaddr < pe->seg[i].vaddr + pe->seg[i].filesz)
			return pe->seg[i].off + (vaddr - pe->seg[i].vaddr);
	return 0;
}

/*
 * Probe the function that frees code objects (PyCode_Type.tp_dealloc,
 * read from the process: the symbol is static, and gone in a stripped
 * interpreter), once per interpreter file, for all its processes.
 * Without it a code object replaced at a reused address could be shown
 * with the names of the one before.
 */
static void attach_code_free(struct rec *r, struct py_elf *pe, const char *open_path,
			     uint32_t pid, uint64_t bias, uint64_t code_type,
			     const struct rec_py_layout *L)
{
	if (pe->free_tried)
		return;
	pe->free_tried = 1;
	uint64_t fn = code_type ? read_ptr(pid, code_type + L->tp_dealloc) : 0;
	uint64_t off = fn ? code_offset(pe, fn - bias) : 0;
	if (off)
		pe->free_link = bpf_program__attach_uprobe(r->skel->progs.py_code_free, false, -1,
							  open_path, (size_t)off);
	if (!pe->free_link)
		ilog_warnf("%s: cannot probe where code objects are freed (%s); a code object "
			   "replaced at the same address may show its predecessor's names",
			   open_path, off ? strerror(errno) : "tp_dealloc not found");
}

void rec_py_close(struct rec *r)
{
	(void)r;
	for (unsigned i = 0; i < nelfs; i++) {
		bpf_link__destroy(elfs[i].free_link);
		elfs[i].free_link = NULL;
	}
}

static int is_exe(uint32_t pid, const char *file)
{
	char path[64], exe[4096];
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	ssize_t n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		return 0;
	exe[n] = 0;
	return !strcmp(exe, file);
}

void rec_py_setup(struct rec *r)
{
	r->skel->rodata->targ_pywalk = r->o.py_walker;
}

void rec_py_mapping(struct rec *r, uint32_t pid, const char *file, const char *open_path,
		    uint64_t start, uint64_t offset)
{
	if (!r->o.py_walker)
		return;
	struct rec_proc *p = rec_proc_get(r, pid, 0);
	if (!p)
		return;
	if (!p->py) {
		p->py = calloc(1, sizeof(*p->py));
		if (!p->py)
			return;
	}
	struct rec_pyproc *py = p->py;
	if (py->start_ticks != p->start_ticks || py->gen != p->written_gen) {
		/* a new image (exec, or a reused pid): forget the old interpreter */
		if (py->found)
			bpf_map__delete_elem(r->skel->maps.py_procs, &pid, sizeof(pid), 0);
		memset(py, 0, sizeof(*py));
		py->start_ticks = p->start_ticks;
		py->gen = p->written_gen;
	}
	if (py->found)
		return;
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	if (strncmp(base, "libpython", 9) && !is_exe(pid, file))
		return;
	struct py_elf *pe = elf_info(open_path);
	if (!pe || !pe->has_runtime)
		return;
	/* load bias: where the segment holding this file offset landed */
	uint64_t bias = 0;
	int have_bias = 0;
	for (unsigned i = 0; i < pe->nseg && !have_bias; i++) {
		if (offset >= (pe->seg[i].off & ~4095ull) &&
		    offset < pe->seg[i].off + pe->seg[i].filesz) {
			bias = start + pe->seg[i].off - pe->seg[i].vaddr - offset;
			have_bias = 1;
		}
	}
	if (!have_bias)
		return;
	uint64_t runtime = bias + pe->runtime;
	uint16_t version = pe->version ? pe->version : version_from_name(file);
	const struct rec_py_layout *row = layout_for(version);
	if (!row) {
		if (!pe->warned++) {
			if (version)
				ilog_warnf("%s: CPython %u.%u: no frame walker for this version; "
					   "its processes get no Python stacks",
					   file, version >> 8, version & 0xff);
			else
				ilog_warnf("%s: defines _PyRuntime but its CPython version is "
					   "unknown; no Python stacks", file);
		}
		return;
	}
	struct rec_py_layout L = *row;
	int dbg = version >= 0x030d ? apply_debug_offsets(pid, runtime, &L) : 0;
	if (dbg) {
		if (!pe->warned++)
			ilog_warnf(dbg == -2 ? "%s: a free-threaded CPython (pid %u): no frame "
					       "walker for it; no Python stacks"
					     : "%s: no readable 3.13 _Py_DebugOffsets in pid %u; no "
					       "Python stacks",
				   file, pid);
		return;
	}
	if (frame_bytes(&L) > REC_PY_FRAME_READ || !layout_plausible(pid, runtime, &L)) {
		if (!pe->warned++)
			ilog_warnf("%s: pid %u does not match the CPython %u.%u layout; no "
				   "Python stacks", file, pid, version >> 8, version & 0xff);
		return;
	}
	py->found = 1;
	py->serial = next_serial++;
	py->code_type = pe->code_type ? bias + pe->code_type : 0;
	py->L = L;
	push_proc(r, pid, runtime, &L);
	attach_code_free(r, pe, open_path, pid, bias, py->code_type, &L);
	if (ILOG_VERBOSE(1))
		fprintf(stderr, "%s: pid %u: CPython %u.%u in %s, _PyRuntime at 0x%llx\n",
			ilog_prog, pid, version >> 8, version & 0xff, file,
			(unsigned long long)runtime);
}

/* ---- code objects ---- */

static size_t put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 63));
		return 2;
	}
	if (c < 0x10000) {
		if (c >= 0xd800 && c < 0xe000)
			c = 0xfffd; /* a lone surrogate is not UTF-8 */
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | ((c >> 6) & 63));
		o[2] = (char)(0x80 | (c & 63));
		return 3;
	}
	if (c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x10000)
		return put_utf8(o, c);
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | ((c >> 12) & 63));
	o[2] = (char)(0x80 | ((c >> 6) & 63));
	o[3] = (char)(0x80 | (c & 63));
	return 4;
}

/* A str object as UTF-8 into out (cap >= 4 * PY_MAX_STR + 1).  -1 if unreadable. */
static int read_str(uint32_t pid, const struct rec_py_layout *L, uint64_t addr, char *out)
{
	uint8_t h[128];
	out[0] = 0;
	if (!addr || L->compact_size + 8u > sizeof(h) || read_mem(pid, addr, h, L->compact_size + 8u))
		return -1;
	int64_t len;
	uint32_t state;
	memcpy(&len, h + L->str_length, 8);
	memcpy(&state, h + L->str_state, 4);
	unsigned kind = (state >> L->state_kind) & 7;
	int compact = (state >> L->state_compact) & 1, ascii = (state >> L->state_ascii) & 1;
	if (len < 0 || (kind != 1 && kind != 2 && kind != 4))
		return -1;
	if (len > PY_MAX_STR)
		len = PY_MAX_STR;
	uint64_t data;
	if (compact)
		data = addr + (ascii ? L->ascii_size : L->compact_size);
	else
		memcpy(&data, h + L->compact_size, 8); /* PyUnicodeObject.data.any */
	static uint8_t raw[PY_MAX_STR * 4];
	if (len && read_mem(pid, data, raw, (size_t)len * kind))
		return -1;
	size_t o = 0;
	for (int64_t i = 0; i < len; i++) {
		uint32_t c;
		if (kind == 1) {
			c = raw[i];
		} else if (kind == 2) {
			uint16_t u;
			memcpy(&u, raw + 2 * i, 2);
			c = u;
		} else {
			memcpy(&c, raw + 4 * i, 4);
		}
		o += put_utf8(out + o, c);
	}
	out[o] = 0;
	return 0;
}

static uint32_t code_gen_now(struct rec *r, uint32_t pid, uint64_t code)
{
	struct rec_py_code_key k = { .code = code, .tgid = pid };
	uint32_t gen = 0;
	bpf_map__lookup_elem(r->skel->maps.py_code_gen, &k, sizeof(k), &gen, sizeof(gen), 0);
	return gen;
}

/*
 * Make sure the log has a pycode record for this code object (the one at
 * `code` after `gen` frees there), written when first seen or when its
 * fields changed.  Returns 1 when such a record is in force, 0 when the
 * object cannot be read as it was at the walk (process gone, freed since,
 * not a code object): counted, and the caller writes the frame without
 * its address, so no record of another object at that address (before
 * or after, SPEC §7.3) can name it.
 */
static int ensure_code(struct rec *r, uint32_t pid, struct rec_pyproc *py, uint64_t code,
		       uint32_t gen)
{
	const struct rec_py_layout *L = &py->L;
	uint8_t h[256];
	size_t need = 0;
	const uint16_t fields[] = { L->ob_type, L->co_filename, L->co_name, L->co_qualname,
				    L->co_firstlineno, L->co_linetable };
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (fields[i] != REC_PY_NONE && fields[i] + 8u > need)
			need = fields[i] + 8u;
	if (!code || need > sizeof(h))
		return 0;
	if (read_mem(pid, code, h, need)) {
		/* gone now, but read while it lived: its record stands */
		if (code_get(py->serial, code, gen))
			return 1;
		n_code_read++;
		n_code_failed++;
		return 0;
	}
	uint64_t type, fname, qname, table;
	int32_t first;
	memcpy(&type, h + L->ob_type, 8);
	memcpy(&fname, h + L->co_filename, 8);
	memcpy(&qname, h + (L->co_qualname != REC_PY_NONE ? L->co_qualname : L->co_name), 8);
	memcpy(&table, h + L->co_linetable, 8);
	memcpy(&first, h + L->co_firstlineno, 4);
	uint64_t fp = ILOG_FNV64_INIT;
	fp = ilog_fnv1a_word(fp, type);
	fp = ilog_fnv1a_word(fp, fname);
	fp = ilog_fnv1a_word(fp, qname);
	fp = ilog_fnv1a_word(fp, table);
	fp = ilog_fnv1a_word(fp, (uint32_t)first);
	if (!fp)
		fp = 1;
	if (code_get(py->serial, code, gen) == fp)
		return 1;
	n_code_read++;
	static char file[PY_MAX_STR * 4 + 1], func[PY_MAX_STR * 4 + 1];
	static uint8_t lt[PY_MAX_LINETABLE];
	uint8_t bh[64];
	int64_t ltn = 0;
	if ((py->code_type && type != py->code_type) || read_str(pid, L, fname, file) ||
	    read_str(pid, L, qname, func) || !table || L->bytes_sval > sizeof(bh) ||
	    read_mem(pid, table, bh, L->bytes_sval)) {
		n_code_failed++;
		return 0;
	}
	memcpy(&ltn, bh + L->bytes_size, 8);
	if (ltn < 0 || ltn > (int64_t)PY_MAX_LINETABLE ||
	    (ltn && read_mem(pid, table + L->bytes_sval, lt, (size_t)ltn))) {
		n_code_failed++;
		return 0;
	}
	/* freed since the walk saw it: what was read may be its successor */
	if (code_gen_now(r, pid, code) != gen) {
		n_code_failed++;
		return 0;
	}
	static struct ilog_record rec = { .kind = ILOG_K_PYCODE };
	rec.u.pycode = (struct ilog_pycode){
		.pid = pid, .code = code, .py_version = L->version,
		.filename = ilog_str_c(file), .qualname = ilog_str_c(func),
		.firstlineno = first > 0 ? (uint32_t)first : 0,
		.linetable = { lt, (uint32_t)ltn },
	};
	ilog_writer_put(r->w, &rec);
	code_put(py->serial, code, gen, fp);
	return 1;
}

void rec_py_stack(struct rec *r, const void *msg, size_t size)
{
	const struct rec_pystack *m = msg;
	if (size < REC_PYSTACK_HDR_LEN)
		return;
	uint32_t nr = m->st.nr, pid = m->st.pid;
	if (nr > INGERO_MAX_PYFRAMES || REC_PYSTACK_HDR_LEN + nr * 16ull > size)
		nr = (uint32_t)((size - REC_PYSTACK_HDR_LEN) / 16);
	struct rec_proc *p = rec_proc_get(r, pid, 0);
	if (!p || !p->py || !p->py->found) {
		/* a forked child walks with its parent's layout before we scanned it */
		rec_scan_pid(r, pid);
		p = rec_proc_get(r, pid, 0);
	}
	static struct ilog_record rec = { .kind = ILOG_K_PYSTACK };
	rec.u.pystack.id = m->st.id;
	rec.u.pystack.pid = pid;
	rec.u.pystack.nr = nr;
	rec.u.pystack.entry = nr < 64 ? m->st.entry & ((1ull << nr) - 1) : m->st.entry;
	for (uint32_t i = 0; i < nr; i++) {
		const struct ingero_pyframe *f = &m->st.frames[i];
		int known = p && p->py && p->py->found && ensure_code(r, pid, p->py, f->code, f->_pad);
		/* _pad carried the code generation: not part of the record */
		rec.u.pystack.frames[i] = (struct ingero_pyframe){ .code = known ? f->code : 0,
								   .lasti = f->lasti };
	}
	ilog_writer_put(r->w, &rec);
	r->n_pystack++;
}

void rec_py_losses(struct rec *r, uint64_t ts)
{
	if (!r->o.py_walker)
		return;
	int ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0)
		return;
	struct rec_py_stat *v = calloc((size_t)ncpu, sizeof(*v)), s = { 0 };
	uint32_t zero = 0;
	if (!v)
		return;
	if (!bpf_map__lookup_elem(r->skel->maps.py_stats, &zero, sizeof(zero), v,
				  (size_t)ncpu * sizeof(*v), 0))
		for (int c = 0; c < ncpu; c++) {
			s.walks += v[c].walks;
			s.sent += v[c].sent;
			s.lost += v[c].lost;
			s.nothread += v[c].nothread;
			s.empty += v[c].empty;
			s.truncated += v[c].truncated;
		}
	free(v);
	if (!s.walks && !n_code_read)
		return; /* no Python process seen */
	struct ilog_record rec = { .kind = ILOG_K_LOSS };
	rec.u.loss = (struct ilog_loss){ .ts_ns = ts, .source = ILOG_STR("pystacks"),
					 .lost = s.lost, .seen = s.sent + s.lost };
	ilog_writer_put(r->w, &rec);
	rec.u.loss = (struct ilog_loss){ .ts_ns = ts, .source = ILOG_STR("pycode"),
					 .lost = n_code_failed, .seen = n_code_read };
	ilog_writer_put(r->w, &rec);
	/* stacks deeper than INGERO_MAX_PYFRAMES lose their outermost frames */
	rec.u.loss = (struct ilog_loss){ .ts_ns = ts, .source = ILOG_STR("pystack-depth"),
					 .lost = s.truncated,
					 .seen = s.walks - s.nothread - s.empty };
	ilog_writer_put(r->w, &rec);
}
