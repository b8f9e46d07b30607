// SPDX-License-Identifier: MIT
/*
 * get_ranks: a multi-rank job's ranks, for "which rank is slow" and "where
 * is the job stuck".  One row per rank of each communicator (the
 * rank_skew view: collectives, times last, arrival after the first rank,
 * how long it held the others up, step rate), the rank the others waited
 * for most first, each with the cross-rank finding that names it (the
 * straggler, collective-hang or collective-desync chain: its severity and
 * root cause).  The analysis is lib/analyze's (docs/ranks.md); this only
 * reads what the export stored.
 */
#include <stdio.h>
#include <string.h>
#include "mcp_trace.h"

int tool_ranks(struct ilog_mcp *m, json_t *args, int verbose, struct ilog_buf *text, char *err,
	       size_t errlen)
{
	struct trace_ctx c;
	int rc = trace_session_for(m, args, "summary_ranks",
				   "this database has no rank table (exported by an older "
				   "ingero-export)",
				   &c, err, errlen);
	if (rc)
		return rc;
	char sql[1024];
	snprintf(sql, sizeof(sql),
		 "SELECT r.comm, r.rank, r.nranks, r.node, r.pid, r.collectives, r.last_count,"
		 " r.last_pct, round(r.late_mean_ns / 1e3, 1) AS late_mean_us,"
		 " round(r.late_max_ns / 1e3, 1) AS late_max_us,"
		 " round(r.held_ns / 1e6, 3) AS held_others_ms, round(r.steps_per_s, 2) AS steps_per_s,"
		 " (SELECT group_concat(s.name || ': ' || h.pattern || ': ' || h.root_cause, ' | ')"
		 "  FROM chains h JOIN severities s ON s.severity = h.severity"
		 "  WHERE h.session_id = r.session_id AND h.node = r.node AND h.pid = r.pid"
		 "  AND h.pattern IN ('straggler', 'collective-hang', 'collective-desync')) AS finding"
		 " FROM rank_skew r WHERE r.session_id = %lld"
		 " ORDER BY finding IS NULL, r.held_ns DESC, r.comm, r.rank",
		 (long long)c.session);
	json_t *lim = json_object_get(args, "limit");
	struct mcp_table_caps caps = { .max_rows = lim ? (uint64_t)json_integer_value(lim) : 64,
				       .max_bytes = 256u << 10, .max_cell = 2048 };
	struct mcp_table t;
	if ((rc = mcp_table_query(m, sql, NULL, 0, &caps, &t, err, errlen)))
		return rc;
	rc = mcp_emit_table(text, &t, verbose);
	mcp_table_free(&t);
	return rc;
}
