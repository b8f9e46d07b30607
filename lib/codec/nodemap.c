// SPDX-License-Identifier: MIT
/* The node model every tool shares (ingero/nodemap.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/nodemap.h"
#include "ingero/vec.h"

int ilog_node_map_header(struct ilog_node_map *m, const struct ilog_record *rec,
			 const struct ilog_reader *r, int *isnew)
{
	const struct ilog_header *h = &rec->u.header;
	struct ilog_reader_stats st = { 0 };
	if (r)
		ilog_reader_stats(r, &st);
	/* the first record of a stream: node indexes start over */
	if (st.records == 1)
		for (uint32_t i = 0; i < m->nidx; i++)
			m->by_index[i] = -1;
	if (rec->node >= m->nidx) {
		if (ilog_grow((void **)&m->by_index, &m->capidx, rec->node, sizeof(*m->by_index), 8))
			return -1;
		for (uint32_t i = m->nidx; i <= rec->node; i++)
			m->by_index[i] = -1;
		m->nidx = rec->node + 1;
	}
	struct ilog_node_id key = { .rank = h->rank, .log_session = h->session_id };
	ilog_str_copy(key.name, sizeof(key.name), h->node);
	ilog_str_copy(key.host, sizeof(key.host), h->host);
	ilog_str_copy(key.boot_id, sizeof(key.boot_id), h->boot_id);
	*isnew = 0;
	for (uint32_t i = 0; i < m->nnodes; i++) {
		const struct ilog_node_id *e = &m->nodes[i];
		if (e->log_session == key.log_session && !strcmp(e->name, key.name) &&
		    !strcmp(e->boot_id, key.boot_id)) {
			m->by_index[rec->node] = (int32_t)i;
			return (int)i;
		}
	}
	if (ilog_grow((void **)&m->nodes, &m->capnodes, m->nnodes, sizeof(*m->nodes), 8))
		return -1;
	m->nodes[m->nnodes] = key;
	m->by_index[rec->node] = (int32_t)m->nnodes;
	*isnew = 1;
	return (int)m->nnodes++;
}

void ilog_node_map_free(struct ilog_node_map *m)
{
	free(m->by_index);
	free(m->nodes);
	memset(m, 0, sizeof(*m));
}

void ilog_node_label(const struct ilog_node_id *n, char *buf, size_t len)
{
	if (n->rank >= 0)
		snprintf(buf, len, "%s (rank %lld)", n->name[0] ? n->name : "node", (long long)n->rank);
	else
		snprintf(buf, len, "%s", n->name[0] ? n->name : "node");
}
