/* SPDX-License-Identifier: MIT */
/*
 * ingero-mcp --http: the MCP Streamable HTTP transport (cmd/ingero-mcp/
 * http.c) beside stdio.  Only a transport: every message goes through
 * ilog_mcp_handle (mcp.h), as a stdio line does.
 */
#ifndef INGERO_MCP_HTTP_H
#define INGERO_MCP_HTTP_H

#include "ingero/cli.h"
#include "mcp.h"

struct mcp_http_opts {
	const struct ilog_listen *listen;
	const char *token;          /* bearer token required, or NULL */
	const char *allow_origin;   /* comma-separated origins also accepted, or NULL */
	size_t max_request;         /* largest body (bytes) */
};
/* Serve until SIGTERM or SIGINT.  0, or -1 with err filled (the address
 * could not be bound). */
int mcp_http_serve(struct ilog_mcp *m, const struct mcp_http_opts *o, char *err, size_t errlen);

#endif
