// SPDX-License-Identifier: MIT
/*
 * The analysis the SQLite sink's summaries come from: ingero-correlate's
 * (lib/analyze's driver: statistics, call sites, causal engine, with the
 * caller's options), fed the rows on the feed thread (feed.c).  Made and
 * finished here only.
 */
#include <stdlib.h>
#include "sqlite.h"

int ilog_sq_analysis_new(struct ilog_sink_ctx *c, struct sq *s)
{
	/* the caller's analysis options (its filter chose the records given
	 * here); call sites of every call, for summary_callsites */
	struct ilog_analysis_opts ao = c->analysis ? *c->analysis : (struct ilog_analysis_opts){ 0 };
	ao.callsites = 2;
	ao.kernels = 0;
	if ((s->an = ilog_analysis_new(&ao))) {
		s->stats = ilog_analysis_stats(s->an);
		s->feed = ilog_sq_feed_new(s->an);
	}
	return s->feed ? 0 : -1;
}

void ilog_sq_analysis_free(struct sq *s)
{
	ilog_sq_feed_free(s->feed);
	ilog_analysis_free(s->an);
}

const struct ilog_chain_set *ilog_sq_analysis_finish(struct ilog_sink_ctx *c, struct sq *s)
{
	ilog_sq_feed_hand(s->feed, 1);
	ilog_sq_feed_end(s->feed);
	if (s->feed->failed) {
		snprintf(c->err, sizeof(c->err), "out of memory");
		return NULL;
	}
	/* the chains ingero-correlate would add, unless the log has its own */
	if (ilog_analysis_finish(s->an, !s->chain_records)) {
		snprintf(c->err, sizeof(c->err), "%s%s", ilog_stats_error(s->stats) ? "" : "correlating: ",
			 ilog_analysis_error(s->an));
		return NULL;
	}
	return ilog_analysis_chains(s->an);
}
