/* SPDX-License-Identifier: MIT */
/* ingero-export's live modes (live.c): --listen and --format otlp --url. */
#ifndef INGERO_EXPORT_LIVE_H
#define INGERO_EXPORT_LIVE_H

#include "ingero/cli.h"
#include "ingero/export.h"

struct export_live_opts {
	char *const *inputs;
	int ninputs;
	struct ilog_filter *filt;
	const struct ilog_analysis_opts *analysis; /* of each chain window */
	const struct ilog_listen *listen; /* serve /metrics here, or NULL */
	const char *url;                  /* push OTLP here, or NULL */
	uint64_t interval_ns, linger_ns, window_ns, chain_window_ns;
};
/* Run until the stream ends (and lingers) or SIGTERM/SIGINT; the exit
 * status. */
int export_live(const struct export_live_opts *o);

#endif
