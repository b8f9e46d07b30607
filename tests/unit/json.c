// SPDX-License-Identifier: MIT
/*
 * lib/codec/json.c: the JSON Lines rendering is a contract (stable field names,
 * SPEC §6), so these compare whole lines (up to fields appended later).  Records go through a real log
 * so wall-clock anchors and schema names come from a reader.
 */
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ingero/ilog.h"
#include "test.h"

static struct ilog_reader *reader_over(int fd)
{
	char err[256];
	lseek(fd, 0, SEEK_SET);
	struct ilog_reader *r = ilog_reader_open(fd, err, sizeof(err));
	if (!r)
		abort();
	return r;
}

static void put(struct ilog_writer *w, const struct ilog_record *rec)
{
	if (ilog_writer_put(w, rec))
		abort();
}

/* ilog_json_argv: a process record's cmdline as a JSON array */
static void test_argv(void)
{
	struct ilog_buf b = { 0 };
	static const char argv[] = "python3\0train.py\0--a b\0";
	ilog_json_argv(&b, (struct ilog_bin){ (const uint8_t *)argv, sizeof(argv) - 1 });
	ilog_buf_put(&b, "", 1);
	is_str(b.p, "[\"python3\",\"train.py\",\"--a b\"]", "json: argv, the last NUL ends the last argument");
	b.len = 0;
	ilog_json_argv(&b, (struct ilog_bin){ (const uint8_t *)"", 0 });
	ilog_buf_put(&b, "", 1);
	is_str(b.p, "[]", "json: empty argv");
	ilog_buf_free(&b);
}

int main(void)
{
	test_argv();
	int fd = memfd_create("json-test", 0);
	char err[256];
	struct ilog_writer *w = ilog_writer_open(fd, NULL, err, sizeof(err));
	struct ilog_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_HEADER;
	rec.u.header = (struct ilog_header){
		.magic = ILOG_STR("ILOG"), .version_major = 1, .version_minor = 0,
		.node = ILOG_STR("n"), .boot_id = ILOG_STR("b"), .host = ILOG_STR("h"),
		.recorder = ILOG_STR("r"), .kernel = ILOG_STR("k"), .driver = ILOG_STR(""),
		.session_id = 0xabc, .rank = -1, .mono_ns = 1000, .boot_ns = 2000,
		.real_ns = 1795364400000000000ull,
	};
	put(w, &rec);

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_CUDA;
	rec.u.cuda = (struct ingero_cuda_event){
		.ts_ns = 1500, .dur_ns = 4000, .pid = 42, .tid = 43, .op = ILOG_OP_cudaLaunchKernel,
		.layer = ILOG_LAYER_RUNTIME, .flags = 2, .ret = -3, .stream = 0x5600000a0000ull,
		.bytes = UINT64_MAX, .handle = 0, .kind = 1, .grid_x = 1024, .grid_y = 1, .grid_z = 1,
		.block_x = 256, .block_y = 1, .block_z = 1, .stack_id = 0xffffffffffffffffull,
		.pystack_id = 0,
	};
	put(w, &rec);

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_CUDA;
	rec.u.cuda.ts_ns = 999;     /* before the anchor: wall time still defined */
	rec.u.cuda.op = 200;        /* an op this build does not know: a number */
	rec.u.cuda.layer = 9;
	put(w, &rec);

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_HOST;
	rec.u.host.ts_ns = 2000;
	rec.u.host.type = ILOG_HOST_SWITCH;
	rec.u.host.pid = 1;
	memcpy(rec.u.host.comm, "a\"b\\c\td\x01", 9);
	memcpy(rec.u.host.other_comm, "caf\xc3\xa9\xff", 6);
	put(w, &rec);

	static const char argv[] = "python3\0-c\0print(\"hi\")\0";
	static const uint8_t bid[] = { 0xde, 0xad, 0x00, 0x0f };
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_PROCESS;
	rec.u.process = (struct ilog_process){
		.ts_ns = 3000, .pid = 7, .ppid = 1, .uid = 0, .start_ns = 5,
		.comm = ILOG_STR("py"), .exe = ILOG_STR("/usr/bin/python3"),
		.cmdline = { (const uint8_t *)argv, sizeof(argv) - 1 },
	};
	put(w, &rec);

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_MAPPING;
	rec.u.mapping = (struct ilog_mapping){
		.ts_ns = 3000, .pid = 7, .start = 0x1000, .end = 0x2000, .offset = 0, .prot = 5,
		.path = ILOG_STR("/lib/x.so"), .build_id = { bid, sizeof(bid) },
	};
	put(w, &rec);

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_SNAPSHOT;
	rec.u.snapshot.ts_ns = 4000;
	rec.u.snapshot.cpu_pct = 37.5;
	rec.u.snapshot.ncpu = 2;
	rec.u.snapshot.load1 = INFINITY;   /* not JSON: null */
	rec.u.snapshot.load5 = -0.25;
	rec.u.snapshot.load15 = 1e300;
	rec.u.snapshot.nprocs = 2;
	rec.u.snapshot.procs[0] = (struct ilog_snapshot_proc){ 7, 98.5, 1ull << 30 };
	rec.u.snapshot.procs[1] = (struct ilog_snapshot_proc){ 8, 0.0, 0 };
	put(w, &rec);

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_STACK;
	rec.u.stack.id = 0x1234;
	rec.u.stack.pid = 7;
	rec.u.stack.nr = 2;
	rec.u.stack.ips[0] = 0x7f0000001000ull;
	rec.u.stack.ips[1] = 0;
	put(w, &rec);

	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_CHAIN;
	rec.u.chain = (struct ilog_chain){
		.id = 1, .ts_start = 1000, .ts_end = 2000, .severity = ILOG_SEV_HIGH,
		.pattern = ILOG_STR("cpu-contention"), .pid = 7, .op = ILOG_OP_cudaStreamSynchronize,
		.score = 0.1, .title = ILOG_STR("t"), .root_cause = ILOG_STR("line1\nline2"),
		.fix = ILOG_STR(""), .evidence = ILOG_STR("[]"),
	};
	put(w, &rec);

	/* an unknown kind with a schema, and one without */
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_SCHEMA;
	rec.u.schema.kind = 99;
	rec.u.schema.name = ILOG_STR("future");
	rec.u.schema.nfields = 1;
	rec.u.schema.fields[0] = ILOG_STR("alpha");
	put(w, &rec);
	static const uint8_t fut[] = {
		0x94, 0x63, 0x2a,                     /* [99, 42, */
		0x82, 0xa1, 'k', 0xc3, 0x01, 0xc0,    /* {"k": true, 1: nil}, */
		0x93, 0xcb, 0x40, 0x04, 0, 0, 0, 0, 0, 0, 0xd0, 0x80, 0xc4, 0x02, 0xbe, 0xef, /* [2.5, -128, bin] */
	};
	struct ilog_raw raw = { fut, sizeof(fut) };
	ilog_writer_put_raw(w, &raw);
	static const uint8_t fut2[] = { 0x92, 0xcd, 0x01, 0x2c, 0xd4, 0x01, 0x07 }; /* [300, ext] */
	raw = (struct ilog_raw){ fut2, sizeof(fut2) };
	ilog_writer_put_raw(w, &raw);
	/* [301, {{"\"":0}:1, 2:{{{3:4}:5}:6}}]: container keys as the hex of
	 * their encoding; quoted JSON text would double escapes per level
	 * (30 levels took the records fuzzer past its timeout) */
	static const uint8_t fut3[] = { 0x92, 0xcd, 0x01, 0x2d, 0x82, 0x81, 0xa1, 0x22, 0x00, 0x01,
					0x02, 0x81, 0x81, 0x81, 0x03, 0x04, 0x05, 0x06 };
	raw = (struct ilog_raw){ fut3, sizeof(fut3) };
	ilog_writer_put_raw(w, &raw);

	/* a second node: records carry node_index */
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_NODE;
	rec.u.node.node_index = 2;
	put(w, &rec);
	memset(&rec, 0, sizeof(rec));
	rec.kind = ILOG_K_LOSS;
	rec.u.loss.ts_ns = 5;
	rec.u.loss.source = ILOG_STR("ringbuf:cuda");
	rec.u.loss.lost = 3;
	rec.u.loss.seen = 10;
	put(w, &rec);
	if (ilog_writer_close(w, err, sizeof(err)))
		abort();

	static const char *const want[] = {
		"{\"type\":\"header\",\"magic\":\"ILOG\",\"version_major\":1,\"version_minor\":0,"
		"\"node\":\"n\",\"boot_id\":\"b\",\"host\":\"h\",\"recorder\":\"r\",\"kernel\":\"k\","
		"\"driver\":\"\",\"session_id\":\"0xabc\",\"rank\":-1,\"mono_ns\":1000,\"boot_ns\":2000,"
		"\"real_ns\":1795364400000000000,\"node_index\":0}",
		"{\"type\":\"cuda\",\"ts_ns\":1500,\"time\":\"2026-11-22T16:20:00.000000500Z\","
		"\"dur_ns\":4000,\"pid\":42,\"tid\":43,\"layer\":\"runtime\",\"op\":\"cudaLaunchKernel\","
		"\"ret\":-3,\"stream\":\"0x5600000a0000\",\"bytes\":18446744073709551615,"
		"\"handle\":\"0x0\",\"kind\":1,\"grid_x\":1024,\"grid_y\":1,\"grid_z\":1,"
		"\"block_x\":256,\"block_y\":1,\"block_z\":1,\"flags\":2,"
		"\"stack_id\":\"0xffffffffffffffff\",\"pystack_id\":\"0x0\"}",
		"{\"type\":\"cuda\",\"ts_ns\":999,\"time\":\"2026-11-22T16:19:59.999999999Z\","
		"\"dur_ns\":0,\"pid\":0,\"tid\":0,\"layer\":9,\"op\":200,\"ret\":0,\"stream\":\"0x0\","
		"\"bytes\":0,\"handle\":\"0x0\",\"kind\":0,\"grid_x\":0,\"grid_y\":0,\"grid_z\":0,"
		"\"block_x\":0,\"block_y\":0,\"block_z\":0,\"flags\":0,\"stack_id\":\"0x0\","
		"\"pystack_id\":\"0x0\"}",
		"{\"type\":\"host\",\"ts_ns\":2000,\"time\":\"2026-11-22T16:20:00.000001000Z\","
		"\"host_type\":\"switch\",\"pid\":1,\"tid\":0,\"other_pid\":0,\"other_tid\":0,"
		"\"dur_ns\":0,\"value\":0,\"cpu\":0,\"comm\":\"a\\\"b\\\\c\\td\\u0001\","
		"\"other_comm\":\"caf\xc3\xa9\\ufffd\"}",
		"{\"type\":\"process\",\"ts_ns\":3000,\"time\":\"2026-11-22T16:20:00.000002000Z\","
		"\"pid\":7,\"ppid\":1,\"uid\":0,\"start_ns\":5,\"comm\":\"py\","
		"\"exe\":\"/usr/bin/python3\",\"argv\":[\"python3\",\"-c\",\"print(\\\"hi\\\")\"]}",
		"{\"type\":\"mapping\",\"ts_ns\":3000,\"time\":\"2026-11-22T16:20:00.000002000Z\","
		"\"pid\":7,\"start\":\"0x1000\",\"end\":\"0x2000\",\"offset\":\"0x0\",\"prot\":5,"
		"\"path\":\"/lib/x.so\",\"build_id\":\"dead000f\"}",
		"{\"type\":\"snapshot\",\"ts_ns\":4000,\"time\":\"2026-11-22T16:20:00.000003000Z\","
		"\"cpu_pct\":37.5,\"ncpu\":2,\"mem_total\":0,\"mem_avail\":0,\"swap_total\":0,"
		"\"swap_free\":0,\"load1\":null,\"load5\":-0.25,\"load15\":1e+300,"
		"\"procs\":[{\"pid\":7,\"cpu_pct\":98.5,\"rss\":1073741824,\"rss_growth\":0,"
		"\"comm\":\"\"},{\"pid\":8,\"cpu_pct\":0,\"rss\":0,\"rss_growth\":0,\"comm\":\"\"}],"
		"\"psi_cpu_some\":0,\"psi_mem_some\":0,\"psi_mem_full\":0,\"psi_io_some\":0,"
		"\"psi_io_full\":0,\"steal_pct\":0}",
		"{\"type\":\"stack\",\"id\":\"0x1234\",\"pid\":7,\"ips\":[\"0x7f0000001000\",\"0x0\"]}",
		"{\"type\":\"chain\",\"id\":\"0x1\",\"ts_start\":1000,\"time\":\"2026-11-22T16:20:00.000000000Z\",\"ts_end\":2000,"
		"\"severity\":\"HIGH\",\"pattern\":\"cpu-contention\",\"pid\":7,"
		"\"op\":\"cudaStreamSynchronize\",\"score\":0.1,\"title\":\"t\","
		"\"root_cause\":\"line1\\nline2\",\"fix\":\"\",\"evidence\":\"[]\"}",
		"{\"type\":\"schema\",\"kind\":99,\"name\":\"future\",\"fields\":[\"alpha\"]}",
		"{\"type\":\"future\",\"kind\":99,\"alpha\":42,\"f2\":{\"k\":true,\"1\":null},"
		"\"f3\":[2.5,-128,\"beef\"]}",
		"{\"type\":\"kind_300\",\"kind\":300,\"f1\":\"d40107\"}",
		"{\"type\":\"kind_301\",\"kind\":301,\"f1\":{\"81a12200\":1,"
		"\"2\":{\"8181030405\":6}}}",
		"{\"type\":\"node\",\"node_index\":2}",
		"{\"type\":\"loss\",\"node_index\":2,\"ts_ns\":5,\"source\":\"ringbuf:cuda\","
		"\"lost\":3,\"seen\":10}",
	};
	const size_t nwant = sizeof(want) / sizeof(want[0]);
	struct ilog_reader *r = reader_over(fd);
	const struct ilog_record *got;
	struct ilog_buf b = { 0 };
	size_t i = 0;
	int rc;
	while ((rc = ilog_reader_next(r, &got)) > 0 && i < nwant) {
		b.len = 0;
		int jr = ilog_json_record(&b, got, r);
		ilog_buf_put(&b, "", 1);
		const char *kn = ilog_kind_name(got->kind);
		/* kinds may gain fields at their end (SPEC §8.1): what is here
		 * now must stay, in this order, under these names */
		size_t wl = strlen(want[i]) - 1, gl = strlen(b.p);
		int same = jr == 0 && gl > wl && !strncmp(b.p, want[i], wl) &&
			   (b.p[wl] == '}' || b.p[wl] == ',') && b.p[gl - 1] == '}';
		ok(same, "json: record %zu (%s)", i, kn ? kn : "unknown");
		if (!same)
			diag("got  %s\n#   want %s", b.p, want[i]);
		i++;
	}
	ok(rc == 0 && i == nwant, "json: all %zu records rendered, clean end", nwant);

	/* without a reader: no wall time, unknown kinds by number */
	ilog_reader_close(r);
	r = reader_over(fd);
	ilog_reader_next(r, &got);
	ilog_reader_next(r, &got);
	b.len = 0;
	ilog_json_record(&b, got, NULL);
	ilog_buf_put(&b, "", 1);
	ok(!strstr(b.p, "\"time\"") && strstr(b.p, "\"ts_ns\":1500"),
	   "json without a reader: ts_ns only, no time field");
	ilog_reader_close(r);
	ilog_buf_free(&b);
	close(fd);
	return done_testing();
}
