// SPDX-License-Identifier: MIT
/*
 * HTTP serving for the programs that serve (ingero/http.h) on
 * libmicrohttpd: a small, long-maintained C server library (GNU, in
 * Debian) that does the parts of HTTP/1.1 that are easy to get wrong by
 * hand -- request parsing and limits, keep-alive, chunked uploads,
 * pipelining, timeouts -- so our code only decides what to answer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ingero/http.h"

struct MHD_Daemon *ilog_http_start(const struct ilog_listen *a, MHD_AccessHandlerCallback handler,
				   void *cls, MHD_RequestCompletedCallback done, char *err,
				   size_t errlen)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
	if (a->ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	/* bind ourselves: MHD's own bind says nothing of why it failed */
	int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	socklen_t len = a->ss.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						    : sizeof(struct sockaddr_in);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (const struct sockaddr *)&a->ss, len) || listen(fd, 64)) {
		snprintf(err, errlen, "%s: %s", a->text, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct MHD_Daemon *d = MHD_start_daemon(flags, 0, NULL, NULL, handler, cls,
						MHD_OPTION_LISTEN_SOCKET, fd,
						MHD_OPTION_NOTIFY_COMPLETED, done, NULL,
						MHD_OPTION_CONNECTION_TIMEOUT, 30u,
						MHD_OPTION_CONNECTION_LIMIT, 64u,
						MHD_OPTION_END);
	if (!d) {
		snprintf(err, errlen, "%s: cannot start the HTTP server", a->text);
		close(fd);
	}
	return d;
}

enum MHD_Result ilog_http_reply(struct MHD_Connection *c, unsigned status, const char *type,
				const char *body, size_t n, const char *hname, const char *hvalue)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(n, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	if (type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (hname)
		MHD_add_response_header(r, hname, hvalue);
	enum MHD_Result rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}
