// SPDX-License-Identifier: MIT
/*
 * bench/codec: the ilog codec's encode and decode throughput and its
 * compressed size per CUDA event, side by side in one run, one thread.
 *
 *   codec_bench [--events N] [--levels L,L,...] [--repeat R]
 *
 * The stream is tests/tools/mix.h (what synth writes: launch-heavy, host
 * switches, snapshots), once with 20% of the calls carrying a stack and
 * once without.  It is generated into memory first; then
 *   encode: ilog_writer_put_cuda (the recorder's hot path) for CUDA events,
 *           ilog_writer_put for the rest, default framing, into /dev/null;
 *   decode: ilog_reader_next over the encoded log read from a memfd.
 * Both include zstd.  Throughput is per second of this thread's CPU time,
 * the best of R runs; MB/s counts the
 * uncompressed msgpack bytes, B/ev the compressed log bytes per CUDA event
 * (stack, host and snapshot records included).  The last lines compare
 * the writer's default level with the targets of issue 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "ingero/ilog.h"
#include "mix.h"

#define TARGET_ENC 5e6   /* CUDA events/s */
#define TARGET_DEC 20e6
#define TARGET_BPE 8.0   /* bytes per CUDA event, without stacks */

struct stream {
	struct ilog_record *other;   /* non-CUDA records, in order */
	struct ingero_cuda_event *cuda;
	uint8_t *is_cuda;            /* per record: 1 = next of cuda[], 0 = next of other[] */
	size_t nrec, ncuda, nother;
};

/* CPU time of this thread: what one core spends, whatever else the
 * machine runs (read(2) of the log counts; waiting for a CPU does not) */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "codec_bench: out of memory\n");
		exit(1);
	}
	return p;
}

static void generate(struct stream *s, uint64_t events, unsigned stack_pct)
{
	struct mix m;
	struct ilog_record rec;
	size_t cap_other = 1024;
	memset(s, 0, sizeof(*s));
	s->cuda = xmalloc(events * sizeof(*s->cuda));
	s->is_cuda = xmalloc(events * 2);
	s->other = xmalloc(cap_other * sizeof(*s->other));
	mix_init(&m, 1, 1000000000000ull, 4242, stack_pct, 0);
	while (m.made < events || m.qi < m.qn) {
		int c = mix_next(&m, &rec);
		if (s->nrec == events * 2)
			break;
		s->is_cuda[s->nrec++] = (uint8_t)c;
		if (c) {
			s->cuda[s->ncuda++] = rec.u.cuda;
		} else {
			if (s->nother == cap_other) {
				cap_other *= 2;
				s->other = realloc(s->other, cap_other * sizeof(*s->other));
				if (!s->other)
					exit(1);
			}
			s->other[s->nother++] = rec;
		}
	}
}

static void stream_free(struct stream *s)
{
	free(s->cuda);
	free(s->is_cuda);
	free(s->other);
}

static struct ilog_header bench_header(void)
{
	return (struct ilog_header){
		.node = ILOG_STR("bench"), .boot_id = ILOG_STR("b"), .host = ILOG_STR("bench"),
		.recorder = ILOG_STR("codec_bench"), .kernel = ILOG_STR(""), .driver = ILOG_STR(""),
		.rank = -1, .mono_ns = 1000000000000ull, .real_ns = 1795364400000000000ull,
	};
}

/* Encode the stream to fd; returns seconds, fills stats. */
static double encode(const struct stream *s, int fd, int level, struct ilog_writer_stats *st)
{
	char err[256];
	struct ilog_writer_opts o = { .level = level };
	struct ilog_writer *w = ilog_writer_open(fd, &o, err, sizeof(err));
	struct ilog_header h = bench_header();
	if (!w || ilog_writer_begin(w, &h)) {
		fprintf(stderr, "codec_bench: writer: %s\n", w ? ilog_writer_error(w) : err);
		exit(1);
	}
	size_t ci = 0, oi = 0;
	double t0 = now();
	for (size_t i = 0; i < s->nrec; i++) {
		int rc = s->is_cuda[i] ? ilog_writer_put_cuda(w, &s->cuda[ci++])
				       : ilog_writer_put(w, &s->other[oi++]);
		if (rc) {
			fprintf(stderr, "codec_bench: put: %s\n", ilog_writer_error(w));
			exit(1);
		}
	}
	if (ilog_writer_flush(w)) {
		fprintf(stderr, "codec_bench: flush: %s\n", ilog_writer_error(w));
		exit(1);
	}
	double t = now() - t0;
	ilog_writer_stats(w, st);
	ilog_writer_close(w, NULL, 0);
	return t;
}

/* Decode fd from the start; returns seconds; checks the CUDA count. */
static double decode(int fd, size_t want_cuda, uint64_t *checksum)
{
	char err[256];
	lseek(fd, 0, SEEK_SET);
	double t0 = now();
	struct ilog_reader *r = ilog_reader_open(fd, err, sizeof(err));
	const struct ilog_record *rec;
	size_t ncuda = 0;
	uint64_t sum = 0;
	int rc;
	while ((rc = ilog_reader_next(r, &rec)) > 0) {
		if (rec->kind == ILOG_K_CUDA) {
			ncuda++;
			sum += rec->u.cuda.ts_ns ^ rec->u.cuda.handle;
		}
	}
	double t = now() - t0;
	if (rc < 0 || ncuda != want_cuda) {
		fprintf(stderr, "codec_bench: decode: %s (%zu of %zu events)\n",
			rc < 0 ? ilog_reader_error(r) : "short", ncuda, want_cuda);
		exit(1);
	}
	ilog_reader_close(r);
	*checksum = sum;
	return t;
}

struct row { double enc, dec, bpe, enc_mbs, dec_mbs; };

static struct row measure(const struct stream *s, int level, int repeat)
{
	struct row best = { 0 };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int mem = memfd_create("codec_bench", MFD_CLOEXEC);
	struct ilog_writer_stats st;
	uint64_t sum;
	if (null < 0 || mem < 0) {
		perror("codec_bench");
		exit(1);
	}
	encode(s, mem, level, &st);  /* the log the decoder reads */
	for (int i = 0; i < repeat; i++) {
		double te = encode(s, null, level, &st);
		double td = decode(mem, s->ncuda, &sum);
		double enc = (double)s->ncuda / te, dec = (double)s->ncuda / td;
		if (enc > best.enc) {
			best.enc = enc;
			best.enc_mbs = (double)st.raw_bytes / te / 1e6;
		}
		if (dec > best.dec) {
			best.dec = dec;
			best.dec_mbs = (double)st.raw_bytes / td / 1e6;
		}
		best.bpe = (double)st.out_bytes / (double)s->ncuda;
	}
	close(null);
	close(mem);
	return best;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, 0, 'n' }, { "levels", required_argument, 0, 'l' },
		{ "repeat", required_argument, 0, 'r' }, { "help", no_argument, 0, 'h' }, { 0 },
	};
	uint64_t events = 2000000;
	int repeat = 3, c;
	char levels_arg[128] = "1,3,5,7";
	while ((c = getopt_long(argc, argv, "n:l:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': events = strtoull(optarg, NULL, 0); break;
		case 'l': snprintf(levels_arg, sizeof(levels_arg), "%s", optarg); break;
		case 'r': repeat = atoi(optarg); break;
		default:
			printf("usage: codec_bench [--events N] [--levels 1,3,5] [--repeat R]\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (events < 1000 || repeat < 1) {
		fprintf(stderr, "codec_bench: --events >= 1000, --repeat >= 1\n");
		return 2;
	}
	int levels[16], nl = 0;
	levels[nl++] = 0; /* the writer's default, whatever it is */
	for (char *p = strtok(levels_arg, ","); p && nl < 16; p = strtok(NULL, ","))
		levels[nl++] = atoi(p);

	printf("codec_bench: %llu CUDA events per mix (tests/tools/mix.h), best of %d, one thread\n",
	       (unsigned long long)events, repeat);
	printf("MB/s = uncompressed msgpack; B/ev = compressed log bytes per CUDA event\n\n");
	printf("%-17s %-9s | %12s %9s | %12s %9s | %6s\n", "mix", "zstd", "encode ev/s", "MB/s",
	       "decode ev/s", "MB/s", "B/ev");
	struct row dflt[2];
	static const unsigned pct[2] = { 20, 0 };
	for (int m = 0; m < 2; m++) {
		struct stream s;
		generate(&s, events, pct[m]);
		for (int i = 0; i < nl; i++) {
			struct row r = measure(&s, levels[i], repeat);
			char lv[16];
			if (levels[i])
				snprintf(lv, sizeof(lv), "level %d", levels[i]);
			else
				snprintf(lv, sizeof(lv), "default");
			printf("%-17s %-9s | %11.2fM %9.0f | %11.2fM %9.0f | %6.2f\n",
			       pct[m] ? "launch, 20% stack" : "launch, no stack", lv, r.enc / 1e6,
			       r.enc_mbs, r.dec / 1e6, r.dec_mbs, r.bpe);
			if (i == 0)
				dflt[m] = r;
			fflush(stdout);
		}
		stream_free(&s);
	}
	printf("\ntargets at the writer's default level (issue 2):\n");
	int miss = 0;
#define VERDICT(ok) ((ok) ? "ok" : (miss = 1, "MISSED"))
	printf("  encode  >= %4.0fM ev/s: %6.2fM (stacks) %6.2fM (none)  %s\n", TARGET_ENC / 1e6,
	       dflt[0].enc / 1e6, dflt[1].enc / 1e6,
	       VERDICT(dflt[0].enc >= TARGET_ENC && dflt[1].enc >= TARGET_ENC));
	printf("  decode  >= %4.0fM ev/s: %6.2fM (stacks) %6.2fM (none)  %s\n", TARGET_DEC / 1e6,
	       dflt[0].dec / 1e6, dflt[1].dec / 1e6,
	       VERDICT(dflt[0].dec >= TARGET_DEC && dflt[1].dec >= TARGET_DEC));
	printf("  size    <= %5.1f B/ev:  %6.2f (none; %.2f with stacks)  %s\n", TARGET_BPE,
	       dflt[1].bpe, dflt[0].bpe, VERDICT(dflt[1].bpe <= TARGET_BPE));
	(void)miss; /* a report, not a gate: timings vary by machine */
	return 0;
}
