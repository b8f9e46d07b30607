// SPDX-License-Identifier: MIT
/*
 * --format csv: one row per CUDA event (RFC 4180: a header row, CRLF-free
 * "\n" line ends as spreadsheet tools and `sqlite3 .import` accept, fields
 * quoted only when they hold a comma, quote or line break).  Columns are
 * the events table of docs/schema.md with names at the edge: node name,
 * layer and op names; handles and ids in hex as the JSON export shows them.
 */
#include <stdlib.h>
#include <string.h>
#include "export_int.h"

struct csv {
	struct ilog_buf b;
	struct ilog_node_map nodes;
	int header_done;
};

static const char csv_header[] =
	"node,ts,dur_ns,pid,tid,layer,op,ret,stream,bytes,handle,kind,grid_x,grid_y,grid_z,"
	"block_x,block_y,block_z,flags,stack_id,pystack_id\n";

static int csv_open(struct ilog_sink_ctx *c)
{
	struct csv *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	c->state = s;
	return 0;
}

static char *put_u64(char *q, uint64_t v)
{
	char t[20];
	int i = 0;
	do {
		t[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (i)
		*q++ = t[--i];
	return q;
}

static char *put_hex(char *q, uint64_t v)
{
	static const char d[] = "0123456789abcdef";
	char t[16];
	int i = 0;
	*q++ = '0';
	*q++ = 'x';
	do {
		t[i++] = d[v & 15];
		v >>= 4;
	} while (v);
	while (i)
		*q++ = t[--i];
	return q;
}

/* A field, quoted when it must be. */
static int put_field(struct ilog_buf *b, const char *s)
{
	if (!strpbrk(s, ",\"\n\r"))
		return ilog_buf_put(b, s, strlen(s));
	if (ilog_buf_put(b, "\"", 1))
		return -1;
	for (; *s; s++)
		if ((*s == '"' && ilog_buf_put(b, "\"", 1)) || ilog_buf_put(b, s, 1))
			return -1;
	return ilog_buf_put(b, "\"", 1);
}

static int csv_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
		      const struct ilog_reader *r)
{
	struct csv *s = c->state;
	int isnew;
	if (!s->header_done) {
		if (ilog_buf_put(&s->b, csv_header, sizeof(csv_header) - 1))
			goto oom;
		s->header_done = 1;
	}
	if (rec->kind == ILOG_K_HEADER) {
		if (ilog_node_map_header(&s->nodes, rec, r, &isnew) < 0)
			goto oom;
		return 0;
	}
	if (rec->kind != ILOG_K_CUDA)
		return 0;
	const struct ingero_cuda_event *e = &rec->u.cuda;
	int node = ilog_node_map_get(&s->nodes, rec, r);
	const char *op = ilog_op_name(e->op), *layer = ilog_layer_name(e->layer);
	char opbuf[16], lbuf[16], line[512];
	if (!op) {
		snprintf(opbuf, sizeof(opbuf), "%u", e->op);
		op = opbuf;
	}
	if (!layer) {
		snprintf(lbuf, sizeof(lbuf), "%u", e->layer);
		layer = lbuf;
	}
	if (put_field(&s->b, node >= 0 ? s->nodes.nodes[node].name : ""))
		goto oom;
	char *q = line;
	*q++ = ',';
	q = put_u64(q, ilog_reader_wall(r, rec->node, e->ts_ns));
	*q++ = ',';
	q = put_u64(q, e->dur_ns);
	*q++ = ',';
	q = put_u64(q, e->pid);
	*q++ = ',';
	q = put_u64(q, e->tid);
	*q++ = ',';
	q = stpcpy(q, layer);
	*q++ = ',';
	q = stpcpy(q, op);
	*q++ = ',';
	if (e->ret < 0) {
		*q++ = '-';
		q = put_u64(q, (uint64_t)-(int64_t)e->ret);
	} else {
		q = put_u64(q, (uint64_t)e->ret);
	}
	*q++ = ',';
	q = put_hex(q, e->stream);
	*q++ = ',';
	q = put_u64(q, e->bytes);
	*q++ = ',';
	q = put_hex(q, e->handle);
	const uint32_t u[] = { e->kind, e->grid_x, e->grid_y, e->grid_z, e->block_x, e->block_y,
			       e->block_z, e->flags };
	for (unsigned i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		*q++ = ',';
		q = put_u64(q, u[i]);
	}
	*q++ = ',';
	q = put_hex(q, e->stack_id);
	*q++ = ',';
	q = put_hex(q, e->pystack_id);
	*q++ = '\n';
	if (ilog_buf_put(&s->b, line, (size_t)(q - line)))
		goto oom;
	if (s->b.len >= (256u << 10))
		return ilog_buf_flush_fd(&s->b, c->out_fd, c->err, sizeof(c->err));
	return 0;
oom:
	snprintf(c->err, sizeof(c->err), "out of memory");
	return -1;
}

static int csv_close(struct ilog_sink_ctx *c)
{
	struct csv *s = c->state;
	if (!s)
		return 0;
	int rc = 0;
	if (!s->header_done && ilog_buf_put(&s->b, csv_header, sizeof(csv_header) - 1))
		rc = -1;
	if (!rc)
		rc = ilog_buf_flush_fd(&s->b, c->out_fd, c->err, sizeof(c->err));
	ilog_buf_free(&s->b);
	ilog_node_map_free(&s->nodes);
	free(s);
	c->state = NULL;
	return rc;
}

const struct ilog_sink ilog_sink_csv = {
	.name = "csv",
	.help = "CUDA events as CSV with a header row (columns of the sqlite events table)",
	.open = csv_open, .record = csv_record, .close = csv_close,
};
