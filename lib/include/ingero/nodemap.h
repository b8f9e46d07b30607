/* SPDX-License-Identifier: MIT */
/* Codec layer: the node model every tool shares (lib/codec/nodemap.c). */
#ifndef INGERO_NODEMAP_H
#define INGERO_NODEMAP_H

#include "ingero/ilog.h"

/*
 * Nodes are recordings: every distinct (node name, log session, boot id)
 * met in a header gets the next ordinal, in order of appearance, whatever
 * node_index it has in its log, so several logs read one after the other
 * (each with node_index 0) stay apart, `cat a.ilog b.ilog` of one
 * recording stays one, and a merged log keeps its order.  Every tool that
 * reads several logs numbers its nodes so (the exports, the statistics).
 */
struct ilog_node_id {
	char name[128], host[128];
	int64_t rank;
	uint64_t log_session;
	char boot_id[64];
};

struct ilog_node_map {
	int32_t *by_index;         /* reader node index -> node, -1 none */
	uint32_t nidx, capidx;
	struct ilog_node_id *nodes;
	uint32_t nnodes, capnodes;
};

/* For a header record: its node (>= 0) and *isnew, or -1 on ENOMEM.  r
 * (may be NULL: records not from a reader) tells a new stream's first
 * header, whose node indexes start over. */
int ilog_node_map_header(struct ilog_node_map *m, const struct ilog_record *rec,
			 const struct ilog_reader *r, int *isnew);
/* The node of any record, or -1 when no header was seen for its node. */
static inline int ilog_node_map_get(const struct ilog_node_map *m, const struct ilog_record *rec,
				    const struct ilog_reader *r)
{
	(void)r;
	return rec->node < m->nidx ? m->by_index[rec->node] : -1;
}
void ilog_node_map_free(struct ilog_node_map *m);
/* Display name of a node: "name (rank R)" or "name". */
void ilog_node_label(const struct ilog_node_id *n, char *buf, size_t len);

#endif
