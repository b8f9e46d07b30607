// SPDX-License-Identifier: MIT
/*
 * --format clickhouse: stream a log into ClickHouse over its HTTP
 * interface, as `INSERT INTO db.table (columns) FORMAT RowBinary` batches
 * (docs/fleet.md).  --format clickhouse-sql: print the schema's DDL.
 *
 * Two threads.  The caller's thread decodes records and appends rows to
 * one open batch per table; a sender thread POSTs finished batches, so
 * encoding and the server's work overlap.  A batch is finished at
 * BATCH_ROWS rows or BATCH_BYTES bytes, or FLUSH_NS after its first row
 * (the sender's clock: a live `ingero-record -o - | ingero-export` whose
 * input goes quiet still gets its rows in).  At most MAX_QUEUED finished
 * batches wait, so memory stays bounded when the server is slower than
 * the log.
 *
 * Delivery.  A batch stays below ClickHouse's max_insert_block_size
 * (1048576 rows), so the server writes it as one block: all of it or,
 * on an error answer, none.  Failures are retried with backoff (the
 * schedule in export_clickhouse.h) when nothing can have landed
 * (connection refused) or the server said "busy".  When the connection
 * breaks after the batch went out, the server may have kept a prefix of
 * it: ClickHouse inserts the rows it read when a body ends on a row
 * boundary.  Then the sender waits until the INSERT (by its query_id) is
 * no longer running, counts the session's rows in the table, and sends
 * only the rows that did not land, so nothing is lost or doubled; tables
 * whose rows replace each other by key (stacks, nodes, sessions, lookups)
 * are simply sent again.  When that cannot be settled, the error says
 * what the table holds.  Anything else fails the export with the
 * server's own message (its first line, "Code: N, ...").
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include "ingero/io.h"
#include "clickhouse.h"
#include "ingero/symbolize_map.h"

/* ---- small helpers ---- */

static uint64_t random_id(void)
{
	uint64_t v = 0;
	if (getrandom(&v, sizeof(v), 0) != (ssize_t)sizeof(v))
		v = ilog_mono_ns() ^ ((uint64_t)getpid() << 40);
	v &= INT64_MAX; /* the SQLite export's session ids are 63 bits too */
	return v ? v : 1;
}

static uint64_t realtime_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---- rows (the caller's thread) ---- */

static struct batch *new_batch_locked(struct ch *s, enum ilog_ch_table t)
{
	struct batch *b = s->spare;
	if (b)
		s->spare = b->next;
	else if (!(b = calloc(1, sizeof(*b))))
		return NULL;
	b->t = t;
	b->next = NULL;
	b->nrows = 0;
	b->rows.len = 0;
	b->born_ns = ilog_mono_ns();
	return b;
}

static int add_row(struct ilog_sink_ctx *c, struct ch *s, enum ilog_ch_table t, const void *row)
{
	pthread_mutex_lock(&s->mu);
	if (s->failed)
		goto failed;
	struct batch *b = s->cur[t];
	if (!b) {
		if (!(b = new_batch_locked(s, t)))
			goto oom;
		s->cur[t] = b;
		pthread_cond_signal(&s->wake_sender); /* a new flush deadline */
	}
	if (ilog_ch_tables[t].counted) {
		/* nrows stays below BATCH_ROWS */
		if (ilog_grow((void **)&b->offs, &b->capoffs, (uint32_t)b->nrows, sizeof(*b->offs),
			      1024))
			goto oom;
		b->offs[b->nrows] = (uint32_t)b->rows.len;
	}
	if (ilog_ch_encode(&b->rows, t, row))
		goto oom;
	b->nrows++;
	if (b->nrows >= BATCH_ROWS || b->rows.len >= BATCH_BYTES) {
		ilog_ch_enqueue_locked(s, t);
		pthread_cond_signal(&s->wake_sender);
		/* back-pressure: the log waits for the server */
		while (s->queued >= MAX_QUEUED && !s->failed)
			pthread_cond_wait(&s->wake_main, &s->mu);
		if (s->failed)
			goto failed;
	}
	pthread_mutex_unlock(&s->mu);
	return 0;
oom:
	ilog_ch_fail_locked(s, "out of memory");
failed:
	snprintf(c->err, sizeof(c->err), "%s", s->err);
	pthread_mutex_unlock(&s->mu);
	return -1;
}

static int oom(struct ilog_sink_ctx *c)
{
	snprintf(c->err, sizeof(c->err), "out of memory");
	return -1;
}

/* A header: its export node (a new one gets a nodes row).  -1 on error. */
static int header(struct ilog_sink_ctx *c, struct ch *s, const struct ilog_record *rec)
{
	const struct ilog_header *h = &rec->u.header;
	int isnew, node = ilog_node_map_header(&s->nodes, rec, NULL, &isnew);
	if (node < 0)
		return oom(c);
	if (!isnew)
		return node;
	char ver[32];
	snprintf(ver, sizeof(ver), "%u.%u", h->version_major, h->version_minor);
	struct ilog_ch_node_row row = {
		.session_id = s->session, .node = ilog_str_c(s->nodes.nodes[node].name), .host = h->host,
		.boot_id = h->boot_id, .rank = h->rank, .log_session = h->session_id,
		.recorder = h->recorder, .kernel = h->kernel, .driver = h->driver,
		.format_version = ilog_str_c(ver), .node_index = h->node_index,
		.anchor_mono_ns = h->mono_ns, .anchor_real_ns = h->real_ns,
	};
	return add_row(c, s, ILOG_CH_NODES, &row) ? -1 : node;
}

static uint32_t node_of(const struct ch *s, const struct ilog_record *rec)
{
	/* the reader refuses records before a header, so one is in force */
	int node = ilog_node_map_get(&s->nodes, rec, NULL);
	return node >= 0 ? (uint32_t)node : 0;
}

/* Context every record gives, whether or not the filter passes it:
 * nodes, address spaces, symbols, and the fleet ids of stacks. */
static int ch_observe(struct ilog_sink_ctx *c, const struct ilog_record *rec)
{
	struct ch *s = c->state;
	if (ilog_symmap_note(s->sym, rec))
		return oom(c);
	switch (rec->kind) {
	case ILOG_K_HEADER:
		return header(c, s, rec) < 0 ? -1 : 0;
	case ILOG_K_PROCESS:
	case ILOG_K_MAPPING:
		return ilog_ch_stacks_note(s->stacks, node_of(s, rec), rec) ? oom(c) : 0;
	case ILOG_K_STACK:
		s->frames_fid = ilog_ch_stacks_add(s->stacks, node_of(s, rec), rec->node,
						   &rec->u.stack, s->sym, &s->frames);
		return s->frames_fid ? 0 : oom(c);
	default:
		return 0;
	}
}

#define ARR(ptr, count, type) ((struct ilog_ch_arr){ (ptr), (count), sizeof(type) })

/* A stack's row, the first time its fleet id is seen (ch_observe resolved
 * its frames just before). */
static int stack_row(struct ilog_sink_ctx *c, struct ch *s)
{
	int first = ilog_ch_stacks_first(s->stacks, s->frames_fid);
	if (first <= 0)
		return first < 0 ? oom(c) : 0;
	const struct ilog_ch_frames *f = &s->frames;
	struct ilog_ch_stack_row row = {
		.stack_id = s->frames_fid, .depth = (uint16_t)f->n,
		.unresolved = (uint16_t)f->unresolved, .symbolized = (uint16_t)f->symbolized,
		.key = ARR(f->key, f->n, struct ilog_str),
		.offset = ARR(f->offset, f->n, uint64_t),
		.module = ARR(f->module, f->n, struct ilog_str),
		.function = ARR(f->function, f->n, struct ilog_str),
		.file = ARR(f->file, f->n, struct ilog_str),
		.line = ARR(f->line, f->n, uint32_t),
	};
	return add_row(c, s, ILOG_CH_STACKS, &row);
}

/* The `ops` rows of the named ops (SPEC §5.17) a record names, each when
 * first seen.  0 or -1. */
static int named_ops(struct ilog_sink_ctx *c, struct ch *s, const struct ilog_record *rec)
{
	const struct ilog_kind_desc *d = ilog_kind_desc(rec->kind);
	for (unsigned i = 0; i < d->nfields; i++) {
		if (d->fields[i].view != FV_OP)
			continue;
		struct ilog_sqlcol col = { .f = &d->fields[i] };
		uint32_t op = (uint32_t)ilog_sqlcol_u64(&col, &rec->u, NULL);
		if (op < ILOG_OP_NAMED_FIRST || !ilog_op_name(op) || ilog_hmap_get(&s->named_ops, op, 0))
			continue;
		struct ilog_ch_name_row orow = { .id16 = (uint16_t)op, .name = ilog_str_c(ilog_op_name(op)),
						 .layer = (uint8_t)ilog_op_layer(op) };
		if (ilog_hmap_set(&s->named_ops, op, 0, 1) || add_row(c, s, ILOG_CH_OPS, &orow))
			return -1;
	}
	return 0;
}

static int ch_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		     const struct ilog_reader *r)
{
	struct ch *s = c->state;
	s->sess.records++;
	uint32_t node = node_of(s, rec);
	const struct ilog_node_id *nid = s->nodes.nnodes ? &s->nodes.nodes[node] : NULL;
	uint64_t ts = ilog_record_ts(rec);
	uint64_t wall = ts ? ilog_reader_wall(r, rec->node, ts) : 0;
	switch (rec->kind) {
	case ILOG_K_CUDA:
		s->sess.events++;
		if (!s->sess.first_ts_ns || wall < s->sess.first_ts_ns)
			s->sess.first_ts_ns = wall;
		if (wall + rec->u.cuda.dur_ns > s->sess.last_ts_ns)
			s->sess.last_ts_ns = wall + rec->u.cuda.dur_ns;
		break;
	case ILOG_K_HOST:
		s->sess.host_events++;
		break;
	case ILOG_K_STACK:
		return stack_row(c, s);
	case ILOG_K_HEADER: case ILOG_K_CLOCK: case ILOG_K_SCHEMA: case ILOG_K_MAPPING:
	case ILOG_K_PYSTACK: case ILOG_K_PYCODE: case ILOG_K_SYMBOL: case ILOG_K_PROVENANCE:
	case ILOG_K_NODE:
		/* context folded into other rows (times, stack ids, frames) or
		 * not in the fleet schema (docs/fleet.md) */
		return 0;
	default:
		break;
	}
	if (rec->kind >= ILOG_K__COUNT || !ilog_ch_tables[ILOG_CH_KIND + rec->kind].name) {
		s->sess.unknown_records++;
		return 0;
	}
	if (named_ops(c, s, rec))
		return -1;
	struct ilog_ch_rec row = {
		.base = &rec->u, .session = s->session, .node = ilog_str_c(nid ? nid->name : ""),
		.rank = nid ? (int32_t)nid->rank : -1, .r = r, .rnode = rec->node,
		.stacks = s->stacks, .xnode = node, .stacks_unknown = &s->sess.stacks_unknown,
	};
	return add_row(c, s, (enum ilog_ch_table)(ILOG_CH_KIND + rec->kind), &row);
}

/* Run DDL or a query, retried; 0 or -1 with c->err set. */
static int run(struct ilog_sink_ctx *c, struct ch *s, const char *sql, const char *what)
{
	char err[512];
	unsigned tries = 0;
	uint64_t t0 = ilog_mono_ns();
	enum ilog_ch_result r = ilog_ch_http_post_retry(s->http, sql, NULL, 0, NULL, 1, s->retry_ms,
							&tries, &s->resp, err, sizeof(err));
	if (r == ILOG_CH_OK)
		return 0;
	if (r == ILOG_CH_REFUSED)
		snprintf(c->err, sizeof(c->err), "%s: %.400s%s", what, err, ilog_ch_hint(err));
	else
		snprintf(c->err, sizeof(c->err), "%s: %.400s (%u tries in %.1f s)", what, err, tries,
			 (double)(ilog_mono_ns() - t0) / 1e9);
	return -1;
}

/*
 * A table made by an older ingero lacks the columns added since (format
 * 1.2's cgroup and container columns, ...): add each one this build has
 * that the table (local or Distributed, suffix) does not, after the column
 * before it, so new rows insert and old rows read the column's default.
 * Plain ADD COLUMN ... AFTER, which 18.16 accepts too (IF NOT EXISTS it
 * does not).  A table that does not exist is left alone.  0 or -1.
 */
static int add_columns(struct ilog_sink_ctx *c, struct ch *s, enum ilog_ch_table t,
		       const char *suffix)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[t];
	struct ilog_buf q = { 0 }, have = { 0 };
	int rc = -1;
	if (ilog_buf_printf(&q, "SELECT name FROM system.columns WHERE database = '%s' AND "
			    "table = '%s%s'", s->db, d->name, suffix) || ilog_buf_put(&q, "", 1))
		goto oom;
	if (run(c, s, q.p, "columns"))
		goto out;
	/* "\nname\n" per column, to look each up whole */
	if (ilog_buf_put(&have, "\n", 1) || ilog_buf_put(&have, s->resp.p, s->resp.len) ||
	    ilog_buf_put(&have, "\n", 2))
		goto oom;
	rc = 0;
	if (have.len <= 3)
		goto out; /* no such table */
	for (unsigned i = 1; i < d->ncols && !rc; i++) {
		char want[128];
		snprintf(want, sizeof(want), "\n%s\n", d->cols[i].name);
		if (strstr(have.p, want))
			continue;
		q.len = 0;
		if (ilog_buf_printf(&q, "ALTER TABLE %s.%s%s ADD COLUMN %s %s AFTER %s", s->db, d->name,
				    suffix, d->cols[i].name, d->cols[i].sql, d->cols[i - 1].name) ||
		    ilog_buf_put(&q, "", 1))
			goto oom;
		rc = run(c, s, q.p, "add column");
	}
	goto out;
oom:
	rc = oom(c);
out:
	ilog_buf_free(&q);
	ilog_buf_free(&have);
	return rc;
}

/* --create: database, tables, and the Distributed tables when the server
 * knows the cluster; tables an older version made gain the new columns. */
static int create_schema(struct ilog_sink_ctx *c, struct ch *s)
{
	struct ilog_buf q = { 0 };
	int rc = -1;
	if (ilog_buf_printf(&q, "CREATE DATABASE IF NOT EXISTS %s", s->db) || ilog_buf_put(&q, "", 1))
		goto oom;
	if (run(c, s, q.p, "create database"))
		goto out;
	for (int i = 0, t; (t = ilog_ch_order((unsigned)i)) >= 0; i++) {
		q.len = 0;
		if (ilog_ch_create(&q, s->db, (enum ilog_ch_table)t, 0) || ilog_buf_put(&q, "", 1))
			goto oom;
		if (run(c, s, q.p, "create table") || add_columns(c, s, (enum ilog_ch_table)t, ""))
			goto out;
	}
	if (run(c, s, "SELECT count() FROM system.clusters WHERE cluster = '" ILOG_CH_CLUSTER "'",
		"clusters"))
		goto out;
	uint64_t n = 0;
	if (ilog_ch_answer_u64(&s->resp, &n) == 0 && n) {
		for (int i = 0, t; (t = ilog_ch_order((unsigned)i)) >= 0; i++) {
			if (!ilog_ch_tables[t].shard_key)
				continue;
			q.len = 0;
			if (ilog_ch_create(&q, s->db, (enum ilog_ch_table)t, 1) || ilog_buf_put(&q, "", 1))
				goto oom;
			if (run(c, s, q.p, "create distributed table") ||
			    add_columns(c, s, (enum ilog_ch_table)t, ILOG_CH_DIST_SUFFIX))
				goto out;
		}
	}
	rc = 0;
	goto out;
oom:
	oom(c);
out:
	ilog_buf_free(&q);
	return rc;
}

/* The lookup tables: names at the edge, from this build's enums. */
static int lookups(struct ilog_sink_ctx *c, struct ch *s)
{
	for (uint32_t op = 0; op < ILOG_OP__COUNT; op++) {
		const char *name = ilog_op_name(op);
		struct ilog_ch_name_row row = { .id16 = (uint16_t)op, .name = ilog_str_c(name),
						.layer = (uint8_t)ilog_op_layer(op) };
		if (name && add_row(c, s, ILOG_CH_OPS, &row))
			return -1;
	}
	for (uint32_t l = 0; l < ILOG_LAYER__COUNT; l++) {
		struct ilog_ch_name_row row = { .id8 = (uint8_t)l, .name = ilog_str_c(ilog_layer_name(l)) };
		if (add_row(c, s, ILOG_CH_LAYERS, &row))
			return -1;
	}
	for (uint32_t t = 1; t < ILOG_HOST__COUNT; t++) {
		struct ilog_ch_name_row row = { .id16 = (uint16_t)t,
						.name = ilog_str_c(ilog_host_type_name(t)) };
		if (add_row(c, s, ILOG_CH_HOST_TYPES, &row))
			return -1;
	}
	for (uint32_t v = ILOG_SEV_LOW; v <= ILOG_SEV_HIGH; v++) {
		struct ilog_ch_name_row row = { .id8 = (uint8_t)v,
						.name = ilog_str_c(ilog_severity_name(v)) };
		if (add_row(c, s, ILOG_CH_SEVERITIES, &row))
			return -1;
	}
	return 0;
}

/* The sessions row, inserted directly (not batched): at open it is also
 * the check that the database and table are there. */
static int session_row(struct ilog_sink_ctx *c, struct ch *s)
{
	struct ilog_buf b = { 0 };
	char err[512];
	unsigned tries = 0;
	uint64_t t0 = ilog_mono_ns();
	if (ilog_ch_encode(&b, ILOG_CH_SESSIONS, &s->sess))
		return oom(c);
	/* idempotent: the row replaces its twin by (session_id, complete) */
	enum ilog_ch_result r = ilog_ch_http_post_retry(s->http, s->sql[ILOG_CH_SESSIONS], b.p, b.len,
							NULL, 1, s->retry_ms, &tries, &s->resp, err,
							sizeof(err));
	ilog_buf_free(&b);
	if (r == ILOG_CH_OK)
		return 0;
	if (r == ILOG_CH_REFUSED)
		snprintf(c->err, sizeof(c->err), "sessions: insert refused: %.400s%s", err, ilog_ch_hint(err));
	else
		snprintf(c->err, sizeof(c->err), "%s%.420s (%u tries in %.1f s)",
			 strncmp(err, "cannot connect", 14) ? "sessions: " : "", err, tries,
			 (double)(ilog_mono_ns() - t0) / 1e9);
	return -1;
}

static void ch_free(struct ch *s)
{
	ilog_hmap_free(&s->named_ops);
	for (int t = 0; t < ILOG_CH__COUNT; t++) {
		free(s->sql[t]);
		if (s->cur[t]) {
			s->cur[t]->next = s->spare;
			s->spare = s->cur[t];
		}
	}
	while (s->qhead) {
		struct batch *b = s->qhead;
		s->qhead = b->next;
		b->next = s->spare;
		s->spare = b;
	}
	while (s->spare) {
		struct batch *b = s->spare;
		s->spare = b->next;
		ilog_buf_free(&b->rows);
		free(b->offs);
		free(b);
	}
	ilog_ch_http_free(s->http);
	ilog_ch_stacks_free(s->stacks);
	ilog_symmap_free(s->sym);
	ilog_buf_free(&s->resp);
	ilog_node_map_free(&s->nodes);
	free(s->argv);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->wake_sender);
	pthread_cond_destroy(&s->wake_main);
	free(s);
}

static int retry_setting(struct ilog_sink_ctx *c, uint64_t *ms)
{
	const char *e = getenv("INGERO_CLICKHOUSE_RETRY");
	*ms = ILOG_CH_RETRY_MS;
	if (!e || !*e)
		return 0;
	char *end;
	double v = strtod(e, &end);
	if (*end || v < 0 || v > 86400) {
		snprintf(c->err, sizeof(c->err), "INGERO_CLICKHOUSE_RETRY: not a number of seconds "
			 "(0-86400) '%s'", e);
		return -1;
	}
	*ms = (uint64_t)(v * 1000);
	return 0;
}

static int ch_open_state(struct ilog_sink_ctx *c);

/* Callers do not close a sink whose open failed: free what was made. */
static int ch_open(struct ilog_sink_ctx *c)
{
	c->label = "clickhouse"; /* until the URL is known */
	if (!ch_open_state(c))
		return 0;
	if (c->state) {
		ch_free(c->state);
		c->state = NULL;
		curl_global_cleanup();
	}
	return -1;
}

static int ch_open_state(struct ilog_sink_ctx *c)
{
	if (ilog_ch_schema()) {
		snprintf(c->err, sizeof(c->err), "a record kind's ClickHouse table does not fit");
		return -1;
	}
	if (!c->url) {
		snprintf(c->err, sizeof(c->err), "--format clickhouse needs --url http://HOST:8123");
		return -1;
	}
	const char *db = c->database ? c->database : DEFAULT_DB;
	if (!ilog_ch_ident(db)) {
		snprintf(c->err, sizeof(c->err), "--database: not a plain name ([A-Za-z_][A-Za-z0-9_]*) "
			 "'%s'", db);
		return -1;
	}
	uint64_t retry_ms;
	if (retry_setting(c, &retry_ms))
		return -1;
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		snprintf(c->err, sizeof(c->err), "cannot initialize libcurl");
		return -1;
	}
	struct ch *s = calloc(1, sizeof(*s));
	if (!s) {
		curl_global_cleanup();
		return oom(c);
	}
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake_sender, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&s->wake_main, NULL);
	c->state = s;
	snprintf(s->db, sizeof(s->db), "%s", db);
	s->retry_ms = retry_ms;
	if (!(s->http = ilog_ch_http_new(c->url, c->err, sizeof(c->err))))
		return -1;
	/* messages name the server; main prints them after close, when the
	 * client is gone, so the label lives in static storage */
	static char label[1024];
	snprintf(label, sizeof(label), "%s", ilog_ch_http_label(s->http));
	c->label = label;
	if (!(s->stacks = ilog_ch_stacks_new()) || !(s->sym = ilog_symmap_new()))
		return oom(c);
	for (int t = 0; t < ILOG_CH__COUNT; t++) {
		struct ilog_buf q = { 0 };
		if (!ilog_ch_tables[t].name)
			continue;
		if (ilog_ch_insert_sql(&q, s->db, (enum ilog_ch_table)t) || ilog_buf_put(&q, "", 1)) {
			ilog_buf_free(&q);
			return oom(c);
		}
		s->sql[t] = q.p;
	}
	s->session = random_id();
	s->sess = (struct ilog_ch_session_row){
		.session_id = s->session, .imported_ns = realtime_ns(),
		.tool = ILOG_STR("ingero-export"), .version = ILOG_STR(INGERO_VERSION),
		.source = ilog_str_c(c->source),
	};
	if (c->create && create_schema(c, s))
		return -1;
	if (session_row(c, s) || lookups(c, s))
		return -1;
	if (pthread_create(&s->th, NULL, ilog_ch_sender, s)) {
		snprintf(c->err, sizeof(c->err), "cannot start a thread: %s", strerror(errno));
		return -1;
	}
	s->started = 1;
	return 0;
}

/*
 * At the end: each table holds exactly the rows this session sent.  A
 * request the server took up only after it was settled as lost (it sat in
 * the server's queue past the grace) shows here as rows too many, and the
 * export fails saying so rather than finishing with duplicates.  The node
 * names are the sort key's prefix, so the server reads only their parts.
 */
static int verify(struct ilog_sink_ctx *c, struct ch *s)
{
	struct ilog_buf q = { 0 };
	int rc = 0;
	for (int t = 0; t < ILOG_CH__COUNT && !rc; t++) {
		if (!ilog_ch_tables[t].counted)
			continue;
		q.len = 0;
		int bad = ilog_buf_printf(&q, "SELECT count() FROM %s.%s WHERE ", s->db,
					  ilog_ch_tables[t].name);
		for (uint32_t i = 0; i < s->nodes.nnodes && !bad; i++) {
			bad |= ilog_buf_printf(&q, "%s'", i ? ", " : "node IN (");
			for (const char *p = s->nodes.nodes[i].name; *p && !bad; p++)
				bad |= ilog_buf_printf(&q, "%s%c", *p == '\\' || *p == '\'' ? "\\" : "", *p);
			bad |= ilog_buf_printf(&q, "'%s", i + 1 == s->nodes.nnodes ? ") AND " : "");
		}
		bad |= ilog_buf_printf(&q, "session_id = %llu", (unsigned long long)s->session);
		bad |= ilog_buf_put(&q, "", 1);
		if (bad) {
			rc = oom(c);
			break;
		}
		uint64_t n;
		char why[256];
		if (ilog_ch_ask_count(s, q.p, ilog_mono_ns() + s->retry_ms * 1000000ull, &n, why,
			      sizeof(why))) {
			snprintf(c->err, sizeof(c->err), "%s: cannot count the rows sent: %s",
				 ilog_ch_tables[t].name, why);
			rc = -1;
		} else if (n != s->confirmed[t]) {
			snprintf(c->err, sizeof(c->err), "%s: the table holds %llu rows of session %llu, "
				 "the export sent %llu (a retried batch landed twice): delete them "
				 "(ALTER TABLE %s.%s DELETE WHERE session_id = %llu) and export again",
				 ilog_ch_tables[t].name, (unsigned long long)n,
				 (unsigned long long)s->session, (unsigned long long)s->confirmed[t],
				 s->db, ilog_ch_tables[t].name, (unsigned long long)s->session);
			rc = -1;
		}
	}
	ilog_buf_free(&q);
	return rc;
}

static int ch_close(struct ilog_sink_ctx *c)
{
	struct ch *s = c->state;
	if (!s)
		return 0;
	int rc = 0;
	if (s->started) {
		pthread_mutex_lock(&s->mu);
		s->closing = 1;
		pthread_cond_signal(&s->wake_sender);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->th, NULL);
		if (s->failed) {
			snprintf(c->err, sizeof(c->err), "%s", s->err);
			rc = -1;
		} else {
			/* the final row replaces the first even at 0 (same
			 * version: the later insert wins) */
			s->sess.complete = !c->input_cut;
			rc = verify(c, s);
			if (!rc)
				rc = session_row(c, s);
		}
	} else {
		rc = c->err[0] ? -1 : 0;
	}
	ch_free(s);
	c->state = NULL;
	curl_global_cleanup();
	return rc;
}

const struct ilog_sink ilog_sink_clickhouse = {
	.name = "clickhouse",
	.help = "into ClickHouse over HTTP (--url, --database D, --create); docs/fleet.md",
	.open = ch_open, .record = ch_record, .observe = ch_observe, .close = ch_close,
};

/* ---- clickhouse-sql ---- */

static int ddl_open(struct ilog_sink_ctx *c)
{
	if (!c->out_path)
		c->label = "clickhouse-sql";
	const char *db = c->database ? c->database : DEFAULT_DB;
	if (!ilog_ch_ident(db)) {
		snprintf(c->err, sizeof(c->err), "--database: not a plain name ([A-Za-z_][A-Za-z0-9_]*) "
			 "'%s'", db);
		return -1;
	}
	struct ilog_buf b = { 0 };
	if (ilog_ch_ddl(&b, db, 1, 1)) {
		ilog_buf_free(&b);
		return oom(c);
	}
	int rc = ilog_buf_flush_fd(&b, c->out_fd, c->err, sizeof(c->err));
	ilog_buf_free(&b);
	return rc;
}

static int ddl_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		      const struct ilog_reader *r)
{
	(void)c, (void)rec, (void)r;
	return 0;
}

static int ddl_close(struct ilog_sink_ctx *c)
{
	(void)c;
	return 0;
}

const struct ilog_sink ilog_sink_clickhouse_sql = {
	.name = "clickhouse-sql",
	.help = "the ClickHouse schema as SQL (--database D), for operators; reads no log",
	.no_input = 1,
	.open = ddl_open, .record = ddl_record, .close = ddl_close,
};
