// SPDX-License-Identifier: MIT
/*
 * pylog: writes a log of pycode and pystack records described on stdin,
 * for tests that take real code objects and frames from a Python
 * interpreter (tests/cli/ingero-symbolize/pystack.sh).  Not a user command.
 * One record per line, fields separated by tabs:
 *
 *   code PID ADDR VERSION FIRSTLINE LINETABLE_HEX FILENAME QUALNAME
 *   stack PID ID ADDR:LASTI...          (innermost frame first)
 *
 * Numbers are decimal or 0x-hex; VERSION is PY_VERSION_HEX >> 16.
 *
 *   pylog -o FILE < description
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/cli.h"

static void put(struct ilog_writer *w, const struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec)) {
		ilog_errorf("%s", ilog_writer_error(w));
		exit(ILOG_EXIT_USAGE);
	}
}

static char *field(char **s)
{
	char *f = strsep(s, "\t\n");
	if (!f) {
		ilog_errorf("stdin: a field is missing");
		exit(ILOG_EXIT_USAGE);
	}
	return f;
}

int main(int argc, char **argv)
{
	ilog_cli_init(argv[0]);
	if (argc != 3 || strcmp(argv[1], "-o")) {
		ilog_errorf("usage: pylog -o FILE < description");
		return ILOG_EXIT_USAGE;
	}
	int fd = ilog_open_out(argv[2]);
	char err[256];
	struct ilog_writer_opts wo = { .frame_ms = ILOG_FRAME_MS_OFF };
	struct ilog_writer *w = fd < 0 ? NULL : ilog_writer_open(fd, &wo, err, sizeof(err));
	if (!w)
		return ILOG_EXIT_USAGE;
	struct ilog_header h = {
		.node = ILOG_STR("node-a"), .host = ILOG_STR("node-a"), .recorder = ILOG_STR("pylog"),
		.rank = -1, .mono_ns = 1000, .real_ns = 1795000000000000000ull,
	};
	if (ilog_writer_begin(w, &h))
		return ILOG_EXIT_USAGE;
	static char line[1 << 20];
	static uint8_t table[1 << 19];
	while (fgets(line, sizeof(line), stdin)) {
		char *s = line;
		char *kind = field(&s);
		struct ilog_record rec = { 0 };
		if (!strcmp(kind, "code")) {
			struct ilog_pycode *c = &rec.u.pycode;
			rec.kind = ILOG_K_PYCODE;
			c->pid = (uint32_t)strtoul(field(&s), NULL, 0);
			c->code = strtoull(field(&s), NULL, 0);
			c->py_version = (uint32_t)strtoul(field(&s), NULL, 0);
			c->firstlineno = (uint32_t)strtoul(field(&s), NULL, 0);
			const char *hex = field(&s);
			size_t n = strlen(hex) / 2;
			if (n > sizeof(table))
				return ILOG_EXIT_USAGE;
			for (size_t i = 0; i < n; i++) {
				unsigned b;
				sscanf(hex + 2 * i, "%2x", &b);
				table[i] = (uint8_t)b;
			}
			c->linetable = (struct ilog_bin){ table, (uint32_t)n };
			c->filename = ilog_str_c(field(&s));
			c->qualname = ilog_str_c(field(&s));
		} else if (!strcmp(kind, "stack")) {
			struct ingero_pystack *p = &rec.u.pystack;
			rec.kind = ILOG_K_PYSTACK;
			p->pid = (uint32_t)strtoul(field(&s), NULL, 0);
			p->id = strtoull(field(&s), NULL, 0);
			char *f;
			while ((f = strsep(&s, "\t\n")) && *f && p->nr < INGERO_MAX_PYFRAMES) {
				char *colon = strchr(f, ':');
				if (!colon)
					return ILOG_EXIT_USAGE;
				p->frames[p->nr].code = strtoull(f, NULL, 0);
				p->frames[p->nr].lasti = (uint32_t)strtoul(colon + 1, NULL, 0);
				p->nr++;
			}
		} else {
			ilog_errorf("stdin: unknown line kind '%s'", kind);
			return ILOG_EXIT_USAGE;
		}
		put(w, &rec);
	}
	if (ilog_writer_close(w, err, sizeof(err))) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	return ILOG_EXIT_OK;
}
