/* SPDX-License-Identifier: MIT */
/*
 * cli layer: the HTTP servers of the programs that serve one
 * (ingero-export --listen, ingero-mcp --http), on libmicrohttpd
 * (lib/cli/http.c; only those programs link it: LDLIBS in their build.mk).
 */
#ifndef INGERO_HTTP_H
#define INGERO_HTTP_H

#include <microhttpd.h>
#include "ingero/cli.h"

/*
 * Listen on a and answer every request with handler; done (may be NULL)
 * is called when a request ends, to free what the handler kept in it.  Requests are handled
 * one at a time on one internal thread, so handlers need no locks among
 * themselves; a connection idle for 30 s is closed.  NULL and err filled
 * ("127.0.0.1:9464: Address already in use") on failure.
 */
struct MHD_Daemon *ilog_http_start(const struct ilog_listen *a, MHD_AccessHandlerCallback handler,
				   void *cls, MHD_RequestCompletedCallback done, char *err,
				   size_t errlen);
/* Queue a reply of n bytes (copied) with a content type (NULL: none), a
 * status and an optional extra header (name NULL: none). */
enum MHD_Result ilog_http_reply(struct MHD_Connection *c, unsigned status, const char *type,
				const char *body, size_t n, const char *hname, const char *hvalue);

#endif
