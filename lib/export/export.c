// SPDX-License-Identifier: MIT
/* The sink table and the JSON Lines sink. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/export.h"
#include "ingero/symbolize_map.h"

/* ---- jsonl ---- */
struct jsonl {
	struct ilog_buf b;
	struct ilog_symmap *sym; /* symbols and code objects seen, for stack frames */
};

static int jsonl_flush(struct ilog_sink_ctx *c, struct jsonl *j)
{
	return ilog_buf_flush_fd(&j->b, c->out_fd, c->err, sizeof(c->err));
}

static int jsonl_open(struct ilog_sink_ctx *c)
{
	struct jsonl *j = calloc(1, sizeof(*j));
	if (!j || !(j->sym = ilog_symmap_new())) {
		free(j);
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (c->callstacks)
		ilog_symmap_keep_stacks(j->sym);
	c->state = j;
	return 0;
}

static int jsonl_record(struct ilog_sink_ctx *c, const struct ilog_record *rec,
			const struct ilog_reader *r)
{
	struct jsonl *j = c->state;
	if (ilog_json_record(&j->b, rec, r)) {
		snprintf(c->err, sizeof(c->err), "cannot render a %u record", rec->kind);
		return -1;
	}
	if (ilog_symmap_json(j->sym, &j->b, rec)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (ilog_buf_put(&j->b, "\n", 1)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	if (j->b.len >= (256u << 10))
		return jsonl_flush(c, j);
	return 0;
}

static int jsonl_close(struct ilog_sink_ctx *c)
{
	struct jsonl *j = c->state;
	if (!j)
		return 0;
	int rc = jsonl_flush(c, j);
	ilog_buf_free(&j->b);
	ilog_symmap_free(j->sym);
	free(j);
	c->state = NULL;
	return rc;
}

static int jsonl_observe(struct ilog_sink_ctx *c, const struct ilog_record *rec)
{
	struct jsonl *j = c->state;
	if (ilog_symmap_note(j->sym, rec)) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return -1;
	}
	return 0;
}

static const struct ilog_sink jsonl_sink = {
	.name = "jsonl",
	.help = "one JSON object per record (for jq); field names in format/SPEC.md",
	.open = jsonl_open, .record = jsonl_record, .observe = jsonl_observe,
	.close = jsonl_close,
};

extern const struct ilog_sink ilog_sink_sqlite, ilog_sink_csv, ilog_sink_perfetto,
	ilog_sink_perfetto_proto, ilog_sink_prometheus, ilog_sink_otlp;
extern const struct ilog_sink ilog_sink_clickhouse, ilog_sink_clickhouse_sql, ilog_sink_folded;

const struct ilog_sink *const ilog_sinks[] = {
	&jsonl_sink,
	&ilog_sink_sqlite,
	&ilog_sink_csv,
	&ilog_sink_perfetto,
	&ilog_sink_perfetto_proto,
	&ilog_sink_prometheus,
	&ilog_sink_otlp,
	&ilog_sink_folded,
	&ilog_sink_clickhouse,
	&ilog_sink_clickhouse_sql,
	NULL,
};

const struct ilog_sink *ilog_sink_find(const char *name)
{
	for (int i = 0; ilog_sinks[i]; i++)
		if (!strcmp(ilog_sinks[i]->name, name))
			return ilog_sinks[i];
	return NULL;
}
