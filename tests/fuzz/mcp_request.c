// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for ingero-mcp's request handling: one input is one
 * stdio line handed to ilog_mcp_handle() (JSON parsing, JSON-RPC
 * validation, method dispatch, tool-argument checks, and the tools
 * themselves against a small in-memory trace database).  Every reply
 * must be one line of valid JSON; anything else is a crash.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <sqlite3.h>
#include "mcp.h"

static struct ilog_mcp *server(void)
{
	static struct ilog_mcp *m;
	if (m)
		return m;
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		abort();
	/* A few rows in the export's tables (docs/schema.md, the columns the
	 * tools read) so every tool runs its queries, plus odd values. */
	if (sqlite3_exec(db,
			 "CREATE TABLE t(a INTEGER, b TEXT, c BLOB);"
			 "INSERT INTO t VALUES (1,'x',x'00ff'),(2,'\xc3\xa9',NULL),(3,NULL,x''),"
			 " (4,'\xff\xfe bad utf-8',x'01');"
			 "CREATE TABLE sessions(session_id, seq, imported_ns, tool, source, records,"
			 " events, host_events, unknown_records, first_ts, last_ts, complete);"
			 "INSERT INTO sessions VALUES (7,1,0,'t','fuzz',9,6,1,0,1000,900000000,1);"
			 "CREATE TABLE events(session_id, node, ts, dur_ns, pid, tid, layer, op, ret,"
			 " stream, bytes, handle, kind, stack_id, pystack_id);"
			 "INSERT INTO events VALUES (7,0,1000,50,42,42,0,11,0,1,0,0,0,5,6),"
			 " (7,0,2000,70000,42,42,0,11,0,1,0,0,0,5,6),(7,0,3000,5,42,42,2,14,0,1,0,0,0,0,0),"
			 " (7,0,4000,9,42,42,2,16,0,0,0,99,0,0,0),(7,0,5000,3,42,42,2,18,0,1,0,99,0,0,0),"
			 " (7,0,6000,-1,43,43,0,65535,7,0,0,0,0,0,0);"
			 "CREATE TABLE host_events(session_id, node, ts, dur_ns, type, pid, tid,"
			 " other_pid, other_tid, cpu, value, comm, other_comm);"
			 "INSERT INTO host_events VALUES (7,0,1500,900,1,42,42,812,812,1,0,'py','backup');"
			 "CREATE TABLE processes(session_id, node, ts, pid, comm);"
			 "INSERT INTO processes VALUES (7,0,0,42,'python3');"
			 "CREATE TABLE frames(session_id, node, stack_id, frame, ip);"
			 "INSERT INTO frames VALUES (7,0,5,0,4096),(7,0,5,1,8192);"
			 "CREATE TABLE symbols(session_id, node, pid, ip, function, file, line, sym_off,"
			 " inline_depth);"
			 "INSERT INTO symbols VALUES (7,0,42,4096,'cudaStreamSynchronize','x.c',3,0,0);"
			 "CREATE TABLE mappings(session_id, node, ts, pid, start, end, file_offset, path);"
			 "INSERT INTO mappings VALUES (7,0,0,42,0,65536,0,'/lib/libcudart.so.13');"
			 "CREATE TABLE pyframes(session_id, node, pystack_id, frame, code, lasti);"
			 "INSERT INTO pyframes VALUES (7,0,6,0,77,3);"
			 "CREATE TABLE pycode(session_id, node, pid, code, py_version, filename, qualname,"
			 " firstlineno, linetable);"
			 "INSERT INTO pycode VALUES (7,0,42,77,779,'train.py','forward',10,x'80008101');"
			 "CREATE TABLE chains(session_id, node, chain_id, ts_start, ts_end, severity,"
			 " pattern, pid, op, score, title, root_cause, fix, evidence);"
			 "INSERT INTO chains VALUES (7,0,1,1000,5000,2,'cpu-contention',42,11,0.5,'t',"
			 " 'backup','pin','[1,2]'),(7,0,2,1000,5000,1,'cpu-contention',42,11,0.1,'t','r',"
			 " 'f','not json');",
			 NULL, NULL, NULL) != SQLITE_OK)
		abort();
	struct ilog_mcp_opts o = { .timeout_ms = 200, .max_rows = 50, .source = "fuzz" };
	char err[256];
	m = ilog_mcp_adopt_db(db, &o, err, sizeof(err));
	if (!m) {
		fprintf(stderr, "%s\n", err);
		abort();
	}
	return m;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ilog_mcp *m = server();
	struct ilog_buf out = { 0 };
	if (ilog_mcp_handle(m, (const char *)data, size, &out))
		abort(); /* only out-of-memory may fail */
	if (out.len) {
		if (memchr(out.p, '\n', out.len))
			abort(); /* a reply must be one line */
		json_error_t je;
		json_t *j = json_loadb(out.p, out.len, 0, &je);
		if (!j)
			abort();
		json_decref(j);
	}
	ilog_buf_free(&out);
	return 0;
}
