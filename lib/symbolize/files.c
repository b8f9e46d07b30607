// SPDX-License-Identifier: MIT
/*
 * Finding and checking the symbolizer's files: a module per build-id (or
 * path), the file that serves it (its recorded path under the sysroot,
 * else the debug directories' .build-id tree, in the order
 * lib/include/ingero/symbolize.h gives), libdwfl set up on it, separate
 * debug files found for libdwfl, and the ELF checks each candidate passes
 * (whole, the wanted build-id) before it is used.
 */
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingero/symbolize.h"
#include "ingero/vec.h"
#include "symbolize_int.h"

#define MAX_REJECTS 4

struct rejects {
	unsigned n;
	char msg[MAX_REJECTS][600];
};

static void reject(struct rejects *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reject(struct rejects *r, const char *fmt, ...)
{
	va_list ap;
	if (r->n >= MAX_REJECTS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->msg[r->n++], sizeof(r->msg[0]), fmt, ap);
	va_end(ap);
}

int ilog_sym_has_section(Elf *elf, const char *name)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *n;
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) && !strcmp(n, name))
			return 1;
	}
	return 0;
}

/*
 * Open file and check it is a whole ELF file with the wanted build-id.
 * Returns an fd (the caller owns it) with *elfp open on it, or -1: the
 * file is absent (nothing said) or rejected (a reason in r).  `whole`
 * asks that the PT_LOAD contents be present, as in a runnable file; a
 * separate debug file keeps the program headers but not the bytes.
 */
static int open_elf(const char *file, const uint8_t *bid, uint32_t nbid, int whole,
		    struct rejects *r, Elf **elfp)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			reject(r, "%s: %s", file, strerror(errno));
		return -1;
	}
	struct stat st;
	Elf *elf = NULL;
	const char *why = NULL;
	GElf_Ehdr eh;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		why = "not a regular file";
		goto bad;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		why = "not an ELF file";
		goto bad;
	}
	if (!gelf_getehdr(elf, &eh) ||
	    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > (uint64_t)st.st_size ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > (uint64_t)st.st_size) {
		why = "truncated ELF file";
		goto bad;
	}
	if (whole) {
		size_t nph;
		if (elf_getphdrnum(elf, &nph)) {
			why = "truncated ELF file";
			goto bad;
		}
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > (uint64_t)st.st_size)) {
				why = "truncated ELF file";
				goto bad;
			}
		}
	}
	if (nbid) {
		const void *p;
		ssize_t n = dwelf_elf_gnu_build_id(elf, &p);
		if (n != (ssize_t)nbid || memcmp(p, bid, nbid)) {
			char want[2 * MAX_BUILD_ID + 1], got[2 * MAX_BUILD_ID + 1] = "none";
			ilog_hex(want, bid, nbid);
			if (n > 0)
				ilog_hex(got, p, (uint32_t)(n > MAX_BUILD_ID ? MAX_BUILD_ID : n));
			reject(r, "%s: build-id %s does not match the recorded %s", file, got, want);
			elf_end(elf);
			close(fd);
			return -1;
		}
	}
	*elfp = elf;
	return fd;
bad:
	reject(r, "%s: %s", file, why);
	if (elf)
		elf_end(elf);
	close(fd);
	return -1;
}

/* dir/.build-id/xx/rest<suffix> */
static void build_id_path(char *out, size_t cap, const char *dir, const uint8_t *bid,
			  uint32_t nbid, const char *suffix)
{
	char h[2 * MAX_BUILD_ID + 1];
	ilog_hex(h, bid, nbid);
	snprintf(out, cap, "%s/.build-id/%.2s/%s%s", dir, h, h + 2, suffix);
}

/* Separate debug info for a module whose file lacks DWARF or .symtab:
 * libdwfl asks here, and we answer from the debug directories only. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  GElf_Addr base, const char *file_name, const char *debuglink,
			  GElf_Word crc, char **debuginfo_file_name)
{
	(void)mod, (void)modname, (void)base, (void)file_name, (void)debuglink, (void)crc;
	struct sym_module *m = *userdata;
	if (!m || !m->nbid)
		return -1;
	struct ilog_symbolizer *s = m->s;
	static const char *const suffixes[] = { ".debug", "" };
	for (unsigned d = 0; d < s->ndirs; d++) {
		for (unsigned k = 0; k < 2; k++) {
			char path[4096];
			struct rejects r = { 0 };
			Elf *elf;
			build_id_path(path, sizeof(path), s->dirs[d], m->bid, m->nbid, suffixes[k]);
			if (m->file && !strcmp(path, m->file))
				continue;
			int fd = open_elf(path, m->bid, m->nbid, 0, &r, &elf);
			for (unsigned i = 0; i < r.n; i++)
				ilog_sym_report(s, ILOG_SYM_WARN, "%s; not used", r.msg[i]);
			if (fd < 0)
				continue;
			int useful = ilog_sym_has_section(elf, ".debug_info") ||
				     ilog_sym_has_section(elf, ".symtab");
			elf_end(elf);
			if (!useful) {
				close(fd);
				continue;
			}
			*debuginfo_file_name = strdup(path);
			return fd;
		}
	}
	return -1;
}

static const Dwfl_Callbacks dwfl_cbs = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* Pick the file (lookup order in lib/include/ingero/symbolize.h) and set up libdwfl. */
void ilog_sym_module_open(struct ilog_symbolizer *s, struct sym_module *m, const char *path)
{
	struct rejects r = { 0 };
	char cand[4096];
	Elf *elf = NULL;
	int fd = -1;
	m->state = -1;
	if (path[0] == '/') {
		const char *root = s->o->sysroot && *s->o->sysroot ? s->o->sysroot : "";
		size_t n = sym_path_len(path, strlen(path));
		snprintf(cand, sizeof(cand), "%s%.*s", root, (int)n, path);
		fd = open_elf(cand, m->bid, m->nbid, 1, &r, &elf);
	}
	for (unsigned d = 0; fd < 0 && m->nbid && d < s->ndirs; d++) {
		build_id_path(cand, sizeof(cand), s->dirs[d], m->bid, m->nbid, "");
		fd = open_elf(cand, m->bid, m->nbid, 1, &r, &elf);
		if (fd < 0) {
			/* a separate debug file keeps the program headers and
			 * .symtab: enough to name functions without the code */
			build_id_path(cand, sizeof(cand), s->dirs[d], m->bid, m->nbid, ".debug");
			fd = open_elf(cand, m->bid, m->nbid, 0, &r, &elf);
		}
	}
	char want[2 * MAX_BUILD_ID + 1] = "none";
	if (m->nbid)
		ilog_hex(want, m->bid, m->nbid);
	for (unsigned i = 0; i < r.n; i++)
		ilog_sym_report(s, ILOG_SYM_WARN, "%s; not used%s", r.msg[i],
				fd < 0 && i + 1 == r.n ? "; frames left as module+offset" : "");
	if (fd < 0) {
		if (!r.n)
			ilog_sym_report(s, ILOG_SYM_WARN,
					"%s (build-id %s): not found at its path%s; frames left as module+offset",
					path, want, m->nbid ? " or in the debug directories" : "");
		return;
	}
	size_t nph = 0;
	if (elf_getphdrnum(elf, &nph) == 0 && nph)
		m->loads = calloc(nph, sizeof(*m->loads));
	for (size_t i = 0; m->loads && i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			m->loads[m->nloads++] = ph;
	}
	elf_end(elf);
	m->file = ilog_strpool_intern(&s->pool, cand, strlen(cand));
	if (!m->nloads || !m->file) {
		ilog_sym_report(s, ILOG_SYM_WARN, "%s: no loadable segments; frames left as module+offset",
				cand);
		close(fd);
		return;
	}
	m->dwfl = dwfl_begin(&dwfl_cbs);
	const char *base = strrchr(path, '/');
	if (m->dwfl)
		m->mod = dwfl_report_elf(m->dwfl, base ? base + 1 : path, m->file, fd, 0, true);
	else
		close(fd);
	if (!m->mod || dwfl_report_end(m->dwfl, NULL, NULL)) {
		ilog_sym_report(s, ILOG_SYM_WARN, "%s: cannot read: %s; frames left as module+offset",
				cand, dwfl_errmsg(-1));
		return;
	}
	void **ud;
	dwfl_module_info(m->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = m;
	if (!dwfl_module_getelf(m->mod, &m->bias)) {
		ilog_sym_report(s, ILOG_SYM_WARN, "%s: cannot read: %s; frames left as module+offset",
				cand, dwfl_errmsg(-1));
		return;
	}
	m->state = 1;
}

/* The module of a mapping: one per build-id, or per path for mappings
 * without one.  Keyed by a hash of the bytes, so the hot path formats and
 * interns nothing. */
struct sym_module *ilog_sym_module_for(struct ilog_symbolizer *s, const struct ilog_mapping *mp)
{
	uint32_t nbid = mp->build_id.n <= MAX_BUILD_ID ? mp->build_id.n : 0;
	const void *kp = nbid ? (const void *)mp->build_id.p : mp->path.p;
	size_t kn = nbid ? nbid : mp->path.n;
	uint64_t h = ilog_strhash(kp, kn), k = (uint64_t)kn << 1 | !!nbid;
	for (uint64_t *v; (v = ilog_hmap_get(&s->modidx, h, k)); k += 1ull << 32) {
		struct sym_module *m = s->mods[*v];
		if (nbid ? m->nbid == nbid && !memcmp(m->bid, kp, kn)
			 : !m->nbid && strlen(m->path) == kn && !memcmp(m->path, kp, kn))
			return m;
	}
	if (ilog_grow((void **)&s->mods, &s->capmods, s->nmods, sizeof(*s->mods), 16))
		return NULL;
	struct sym_module *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->s = s;
	m->nbid = nbid;
	memcpy(m->bid, mp->build_id.p, nbid);
	m->path = ilog_strpool_intern(&s->pool, mp->path.p, mp->path.n);
	if (!m->path || ilog_hmap_set(&s->modidx, h, k, s->nmods)) {
		free(m);
		return NULL;
	}
	s->mods[s->nmods++] = m;
	return m;
}

int ilog_sym_check_file(const char *file, const uint8_t *bid, uint32_t nbid, int whole,
			char *why, size_t whylen)
{
	struct rejects r = { 0 };
	Elf *elf;
	elf_version(EV_CURRENT);
	int fd = open_elf(file, bid, nbid, whole, &r, &elf);
	if (fd >= 0) {
		elf_end(elf);
		close(fd);
		return 1;
	}
	if (!r.n)
		return 0;
	snprintf(why, whylen, "%s", r.msg[0]);
	return -1;
}

uint64_t ilog_symbolizer_modules(const struct ilog_symbolizer *s, uint64_t *found)
{
	uint64_t n = 0;
	for (uint32_t i = 0; i < s->nmods; i++)
		n += s->mods[i]->state > 0;
	if (found)
		*found = n;
	return s->nmods;
}

int ilog_elf_build_id(const char *path, uint8_t *id, size_t cap, char *err, size_t errlen)
{
	struct rejects r = { 0 };
	Elf *elf;
	elf_version(EV_CURRENT);
	int fd = open_elf(path, NULL, 0, 0, &r, &elf);
	if (fd < 0) {
		if (r.n)
			snprintf(err, errlen, "%s", r.msg[0]);
		else
			snprintf(err, errlen, "%s: no such file", path);
		return -1;
	}
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);
	if (n > 0 && (size_t)n <= cap)
		memcpy(id, p, (size_t)n);
	else
		n = 0;
	elf_end(elf);
	close(fd);
	return (int)n;
}
