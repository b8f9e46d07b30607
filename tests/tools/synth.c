// SPDX-License-Identifier: MIT
/*
 * synth: writes valid logs with chosen content, for filter tests, fuzz
 * seeds and benchmarks.  Not a user command.  Deterministic for a seed.
 *
 *   synth [-o FILE] [--events N] [--seed S] [--stacks PCT] [--mix launch|all]
 *         [--frame-records N] [--level L] [--pid P] [--node NAME] [--rank R]
 *         [--real-ns NS] [--mono-ns NS] [--unknown-kind]
 *         [--version-major N] [--raw HEX]...
 *
 * --events counts CUDA events; the stream around them (stacks, host
 * switches, snapshots) is described in mix.h.  For broken logs in tests:
 * --version-major writes the header with that format major; --raw appends
 * one record given as msgpack hex ("92 04 05" or "920405") after the
 * events, before the closing loss record.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/cli.h"
#include "mix.h"

/* "92 04 a1 78" -> bytes; -1 on a bad digit or odd count. */
static int unhex(const char *s, uint8_t **out, uint32_t *n)
{
	size_t len = strlen(s);
	uint8_t *b = malloc(len / 2 + 1);
	uint32_t k = 0;
	int hi = -1;
	if (!b)
		return -1;
	for (; *s; s++) {
		if (isspace((unsigned char)*s))
			continue;
		if (!isxdigit((unsigned char)*s)) {
			free(b);
			return -1;
		}
		int v = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);
		if (hi < 0) {
			hi = v;
		} else {
			b[k++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi >= 0) {
		free(b);
		return -1;
	}
	*out = b;
	*n = k;
	return 0;
}

static int put(struct ilog_writer *w, struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec)) {
		ilog_errorf("%s", ilog_writer_error(w));
		exit(ILOG_EXIT_USAGE);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, 0, 'n' }, { "seed", required_argument, 0, 's' },
		{ "stacks", required_argument, 0, 'S' }, { "mix", required_argument, 0, 'm' },
		{ "frame-records", required_argument, 0, 'F' }, { "level", required_argument, 0, 'L' },
		{ "pid", required_argument, 0, 'p' }, { "node", required_argument, 0, 'N' },
		{ "rank", required_argument, 0, 'r' }, { "real-ns", required_argument, 0, 'R' },
		{ "mono-ns", required_argument, 0, 'M' }, { "unknown-kind", no_argument, 0, 'U' },
		{ "version-major", required_argument, 0, 'V' }, { "raw", required_argument, 0, 'X' },
		{ 0 },
	};
	struct ilog_raw raws[16];
	int nraw = 0, major = -1;
	uint64_t n = 1000, seed = 1, real_ns = 1795000000000000000ull, mono = 1000000000000ull;
	unsigned stack_pct = 20, pid = 4242;
	int64_t rank = -1;
	const char *out = NULL, *mix = "launch", *node = "node-a";
	int unknown = 0, c;
	struct ilog_writer_opts wo = { 0 };
	ilog_cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'n': n = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'S': stack_pct = (unsigned)atoi(optarg); break;
		case 'm': mix = optarg; break;
		case 'F': wo.frame_records = (uint32_t)atoi(optarg); wo.frame_ms = ILOG_FRAME_MS_OFF; break;
		case 'L': wo.level = atoi(optarg); break;
		case 'p': pid = (unsigned)atoi(optarg); break;
		case 'N': node = optarg; break;
		case 'r': rank = atoll(optarg); break;
		case 'R': real_ns = strtoull(optarg, NULL, 0); break;
		case 'M': mono = strtoull(optarg, NULL, 0); break;
		case 'U': unknown = 1; break;
		case 'V': major = atoi(optarg); break;
		case 'X': {
			uint8_t *b;
			if (nraw == 16 || unhex(optarg, &b, &raws[nraw].n)) {
				ilog_errorf("--raw: not hex, or more than 16: '%s'", optarg);
				return ILOG_EXIT_USAGE;
			}
			raws[nraw++].p = b;
			break;
		}
		default: return ILOG_EXIT_USAGE;
		}
	}
	if (!wo.frame_ms)
		wo.frame_ms = ILOG_FRAME_MS_OFF; /* deterministic framing */
	int fd = ilog_open_out(out);
	if (fd < 0)
		return ILOG_EXIT_USAGE;
	char err[256];
	struct ilog_writer *w = ilog_writer_open(fd, &wo, err, sizeof(err));
	if (!w) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	struct ilog_header h = {
		.node = ilog_str_c(node), .boot_id = ILOG_STR("6f1c6a1e-0000-4000-8000-000000000001"),
		.host = ilog_str_c(node), .recorder = ILOG_STR("synth " INGERO_VERSION),
		.kernel = ILOG_STR("6.1.0-synth"), .driver = ILOG_STR(""),
		.session_id = seed, .rank = rank, .mono_ns = mono, .boot_ns = mono + 5000000,
		.real_ns = real_ns,
	};
	struct ilog_record rec = { .kind = ILOG_K_HEADER };
	if (major >= 0) {
		/* a header as some other format version would write it */
		h.magic = ILOG_STR(ILOG_MAGIC);
		h.version_major = (uint32_t)major;
		h.version_minor = 0;
		rec.u.header = h;
		put(w, &rec);
	} else if (ilog_writer_begin(w, &h)) {
		ilog_errorf("%s", ilog_writer_error(w));
		return ILOG_EXIT_USAGE;
	}
	rec.kind = ILOG_K_PROCESS;
	static const char argv0[] = "python3\0train.py\0--epochs\0003";
	rec.u.process = (struct ilog_process){
		.ts_ns = mono, .pid = pid, .ppid = 1, .uid = 1000, .start_ns = mono - 1000000,
		.comm = ILOG_STR("python3"), .exe = ILOG_STR("/usr/bin/python3.11"),
		.cmdline = { (const uint8_t *)argv0, sizeof(argv0) },
	};
	put(w, &rec);
	rec.kind = ILOG_K_MAPPING;
	static const uint8_t bid[20] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	rec.u.mapping = (struct ilog_mapping){
		.ts_ns = mono, .pid = pid, .start = 0x7f0000000000ull, .end = 0x7f0000800000ull,
		.offset = 0, .prot = 5, .path = ILOG_STR("/usr/local/cuda/lib64/libcudart.so.13"),
		.build_id = { bid, sizeof(bid) },
	};
	put(w, &rec);

	struct mix mx;
	mix_init(&mx, seed, mono, pid, stack_pct, !strcmp(mix, "all"));
	while (mx.made < n || mx.qi < mx.qn) {
		mix_next(&mx, &rec);
		put(w, &rec);
	}
	for (int i = 0; i < nraw; i++) {
		if (ilog_writer_put_raw(w, &raws[i]))
			return ILOG_EXIT_USAGE;
		free((void *)raws[i].p);
	}
	if (unknown) {
		/* a kind from the future with its schema, for forward-compat tests */
		struct ilog_record s = { .kind = ILOG_K_SCHEMA };
		s.u.schema.kind = 99;
		s.u.schema.name = ILOG_STR("future");
		s.u.schema.nfields = 2;
		s.u.schema.fields[0] = ILOG_STR("alpha");
		s.u.schema.fields[1] = ILOG_STR("beta");
		put(w, &s);
		static const uint8_t raw[] = { 0x93, 0x63, 0x2a, 0xa3, 'x', 'y', 'z' };
		struct ilog_raw r = { raw, sizeof(raw) };
		if (ilog_writer_put_raw(w, &r))
			return ILOG_EXIT_USAGE;
	}
	struct ilog_record lo = { .kind = ILOG_K_LOSS };
	lo.u.loss = (struct ilog_loss){ .ts_ns = mx.ts, .source = ILOG_STR("ringbuf:cuda"),
					.lost = 0, .seen = n };
	put(w, &lo);
	if (ilog_writer_close(w, err, sizeof(err))) {
		ilog_errorf("%s", err);
		return ILOG_EXIT_USAGE;
	}
	return 0;
}
