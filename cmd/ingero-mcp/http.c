// SPDX-License-Identifier: MIT
/*
 * The MCP Streamable HTTP transport (protocol revisions 2025-03-26 and
 * later) at the endpoint /mcp, on libmicrohttpd (ingero/http.h):
 *
 *  - POST /mcp carries one JSON-RPC message (or, in 2025-03-26, a batch).
 *    Notifications and responses alone are answered 202 Accepted with no
 *    body; requests with 200 and the reply, as application/json when the
 *    client accepts it, else as one SSE event (text/event-stream) on a
 *    stream that then ends.  We never send requests or notifications of
 *    our own, so nothing ever needs a stream to stay open.
 *  - GET /mcp (a stream for server-initiated messages) is 405: the spec's
 *    answer for a server that offers none.  DELETE /mcp ends a session.
 *  - Sessions: the reply to initialize carries Mcp-Session-Id (128 random
 *    bits, hex); later requests without one are 400, with an unknown or
 *    ended one 404 (the client then initializes again).  At most
 *    HTTP_SESSIONS are kept; the least recently used goes first.
 *  - MCP-Protocol-Version, when sent, must be one we speak (400).
 *  - DNS rebinding: bound to loopback, the Host header must name loopback
 *    (localhost, 127.0.0.1, [::1]) and an Origin header, when sent, a
 *    loopback origin or one of --allow-origin; else 403.  Bound elsewhere,
 *    a bearer token (--token-file) is required, and Origin is checked the
 *    same way.
 *  - --token-file: every request needs "Authorization: Bearer TOKEN"
 *    (401 with WWW-Authenticate otherwise), compared in constant time.
 * Requests are handled one at a time (libmicrohttpd's one thread), as on
 * stdio, so the server state needs no locks.
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include "ingero/http.h"
#include "ingero/io.h"
#include "mcp_http.h"

#define HTTP_SESSIONS 64

struct session {
	char id[33];
	uint64_t used;               /* monotonic ns; 0 = free */
};

struct server {
	struct ilog_mcp *m;
	const struct mcp_http_opts *o;
	struct session s[HTTP_SESSIONS];
};

/* One request's upload, gathered across calls of the handler. */
struct upload {
	struct ilog_buf body;
	int too_big;
};

static const char *hdr(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static enum MHD_Result plain(struct MHD_Connection *c, unsigned status, const char *msg)
{
	return ilog_http_reply(c, status, "text/plain; charset=utf-8", msg, strlen(msg), NULL, NULL);
}

/* A JSON-RPC error as the body of an HTTP error (what the SDKs show). */
static enum MHD_Result rpc_error(struct MHD_Connection *c, unsigned status, int code,
				 const char *msg)
{
	char body[512];
	json_t *t = json_string(msg);
	char *s = t ? json_dumps(t, JSON_ENCODE_ANY) : NULL;
	snprintf(body, sizeof(body), "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":%d,"
		 "\"message\":%s}}", code, s ? s : "\"error\"");
	free(s);
	json_decref(t);
	return ilog_http_reply(c, status, "application/json", body, strlen(body), NULL, NULL);
}

/* "http://localhost:3000" and the like: a loopback origin. */
static int origin_loopback(const char *o)
{
	const char *p = strstr(o, "://");
	return p && ilog_host_is_loopback(p + 3);
}

static int origin_allowed(const struct mcp_http_opts *o, const char *origin)
{
	if (o->listen->loopback && origin_loopback(origin))
		return 1;
	size_t n = strlen(origin);
	for (const char *a = o->allow_origin; a && *a;) {
		const char *e = strchr(a, ',');
		size_t k = e ? (size_t)(e - a) : strlen(a);
		if (k == n && !strncasecmp(a, origin, n))
			return 1;
		a = e ? e + 1 : a + k;
	}
	return 0;
}

/* Constant-time comparison of the bearer token. */
static int token_ok(const char *want, const char *auth)
{
	if (!auth || strncasecmp(auth, "Bearer ", 7))
		return 0;
	auth += 7;
	size_t n = strlen(want), m = strlen(auth);
	unsigned char d = n != m;
	for (size_t i = 0; i < n; i++)
		d |= (unsigned char)want[i] ^ (unsigned char)(i < m ? auth[i] : 0);
	return !d;
}

/* Does the Accept header take this type ("application/json")? */
static int accepts(const char *accept, const char *type)
{
	if (!accept)
		return 1;
	return strstr(accept, type) || strstr(accept, "*/*");
}

static struct session *session_find(struct server *sv, const char *id)
{
	for (int i = 0; id && i < HTTP_SESSIONS; i++)
		if (sv->s[i].used && !strcmp(sv->s[i].id, id))
			return &sv->s[i];
	return NULL;
}

static struct session *session_new(struct server *sv)
{
	struct session *s = &sv->s[0];
	for (int i = 1; i < HTTP_SESSIONS && s->used; i++)
		if (!sv->s[i].used || sv->s[i].used < s->used)
			s = &sv->s[i];
	unsigned char r[16];
	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return NULL;
	ilog_hex(s->id, r, sizeof(r));
	s->used = ilog_mono_ns();
	return s;
}

/* Is msg (parsed) an initialize request, or does it hold one? */
static int is_initialize(const json_t *msg)
{
	const char *method = json_string_value(json_object_get(msg, "method"));
	return method && !strcmp(method, "initialize") && json_object_get(msg, "id");
}

static int has_request(const json_t *msg)
{
	if (json_is_array(msg)) {
		size_t i;
		json_t *one;
		json_array_foreach(msg, i, one)
			if (has_request(one))
				return 1;
		return 0;
	}
	return json_is_object(msg) && json_object_get(msg, "method") && json_object_get(msg, "id");
}

static enum MHD_Result post(struct server *sv, struct MHD_Connection *c, struct upload *u)
{
	const char *ctype = hdr(c, MHD_HTTP_HEADER_CONTENT_TYPE);
	if (!ctype || strncasecmp(ctype, "application/json", 16))
		return plain(c, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE, "POST /mcp takes application/json\n");
	const char *accept = hdr(c, MHD_HTTP_HEADER_ACCEPT);
	int json_ok = accepts(accept, "application/json"), sse_ok = accepts(accept, "text/event-stream");
	if (!json_ok && !sse_ok)
		return plain(c, MHD_HTTP_NOT_ACCEPTABLE,
			     "Accept must include application/json or text/event-stream\n");
	if (u->too_big) {
		char msg[128];
		snprintf(msg, sizeof(msg), "invalid request: message longer than %zu bytes",
			 sv->o->max_request);
		return rpc_error(c, MHD_HTTP_CONTENT_TOO_LARGE, -32600, msg);
	}
	const char *pv = hdr(c, "MCP-Protocol-Version");
	if (pv) {
		int known = 0;
		for (int i = 0; ilog_mcp_versions[i]; i++)
			known |= !strcmp(pv, ilog_mcp_versions[i]);
		if (!known)
			return rpc_error(c, MHD_HTTP_BAD_REQUEST, -32600,
					 "unsupported MCP-Protocol-Version");
	}
	json_t *msg = json_loadb(u->body.p ? u->body.p : "", u->body.len, JSON_DECODE_ANY, NULL);
	int init = msg && is_initialize(msg), request = !msg || has_request(msg);
	json_decref(msg);
	struct session *s = NULL;
	const char *sid = hdr(c, "Mcp-Session-Id");
	if (!init && msg) {
		if (!sid)
			return rpc_error(c, MHD_HTTP_BAD_REQUEST, -32600,
					 "no Mcp-Session-Id: initialize first");
		if (!(s = session_find(sv, sid)))
			return rpc_error(c, MHD_HTTP_NOT_FOUND, -32001, "session not found");
		s->used = ilog_mono_ns();
	}
	struct ilog_buf out = { 0 };
	if (ilog_mcp_handle(sv->m, u->body.p ? u->body.p : "", u->body.len, &out)) {
		ilog_buf_free(&out);
		return rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, -32603, "out of memory");
	}
	if (!request && !out.len) {
		ilog_buf_free(&out);
		return ilog_http_reply(c, MHD_HTTP_ACCEPTED, NULL, "", 0, NULL, NULL);
	}
	/* a session for a successful initialize */
	const char *new_id = NULL;
	if (init) {
		json_t *r = json_loadb(out.p, out.len, 0, NULL);
		if (r && json_object_get(r, "result")) {
			if (!(s = session_new(sv))) {
				json_decref(r);
				ilog_buf_free(&out);
				return rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, -32603,
						 "no random bytes for a session id");
			}
			new_id = s->id;
		}
		json_decref(r);
	}
	enum MHD_Result rc;
	if (json_ok) {
		rc = ilog_http_reply(c, MHD_HTTP_OK, "application/json", out.p, out.len,
				     new_id ? "Mcp-Session-Id" : NULL, new_id);
	} else {
		/* one event with the reply; the stream then ends */
		struct ilog_buf ev = { 0 };
		int bad = ilog_buf_printf(&ev, "id: 1\nevent: message\ndata: ") ||
			  ilog_buf_put(&ev, out.p, out.len) || ilog_buf_put(&ev, "\n\n", 2);
		rc = bad ? rpc_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, -32603, "out of memory")
			 : ilog_http_reply(c, MHD_HTTP_OK, "text/event-stream", ev.p, ev.len,
					   new_id ? "Mcp-Session-Id" : NULL, new_id);
		ilog_buf_free(&ev);
	}
	ilog_buf_free(&out);
	return rc;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *data,
				  size_t *size, void **con_cls)
{
	struct server *sv = cls;
	struct upload *u = *con_cls;
	(void)version;
	if (!u) {
		/* first call: the headers are in; decide before any body */
		if (!(u = calloc(1, sizeof(*u))))
			return MHD_NO;
		*con_cls = u;
		return MHD_YES;
	}
	if (*size) {
		if (u->body.len + *size > sv->o->max_request)
			u->too_big = 1;
		else if (ilog_buf_put(&u->body, data, *size))
			return MHD_NO;
		*size = 0;
		return MHD_YES;
	}
	if (strcmp(url, "/mcp"))
		return plain(c, MHD_HTTP_NOT_FOUND, "ingero-mcp serves MCP at /mcp\n");
	/* DNS rebinding: Host and Origin */
	const char *host = hdr(c, MHD_HTTP_HEADER_HOST), *origin = hdr(c, MHD_HTTP_HEADER_ORIGIN);
	if (sv->o->listen->loopback && !ilog_host_is_loopback(host))
		return plain(c, MHD_HTTP_FORBIDDEN, "Host is not a loopback name\n");
	if (origin && !origin_allowed(sv->o, origin))
		return plain(c, MHD_HTTP_FORBIDDEN, "Origin not allowed\n");
	if (sv->o->token && !token_ok(sv->o->token, hdr(c, MHD_HTTP_HEADER_AUTHORIZATION)))
		return ilog_http_reply(c, MHD_HTTP_UNAUTHORIZED, "text/plain", "bearer token required\n",
				       22, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	if (!strcmp(method, "POST"))
		return post(sv, c, u);
	if (!strcmp(method, "DELETE")) {
		struct session *s = session_find(sv, hdr(c, "Mcp-Session-Id"));
		if (!s)
			return rpc_error(c, MHD_HTTP_NOT_FOUND, -32001, "session not found");
		memset(s, 0, sizeof(*s));
		return ilog_http_reply(c, MHD_HTTP_OK, NULL, "", 0, NULL, NULL);
	}
	return ilog_http_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
			       "POST or DELETE (this server sends no messages of its own)\n", 59,
			       "Allow", "POST, DELETE");
}

static void on_done(void *cls, struct MHD_Connection *c, void **con_cls,
		    enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)c;
	(void)why;
	struct upload *u = *con_cls;
	if (u) {
		ilog_buf_free(&u->body);
		free(u);
		*con_cls = NULL;
	}
}

int mcp_http_serve(struct ilog_mcp *m, const struct mcp_http_opts *o, char *err, size_t errlen)
{
	struct server *sv = calloc(1, sizeof(*sv));
	if (!sv) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	sv->m = m;
	sv->o = o;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	struct MHD_Daemon *d = ilog_http_start(o->listen, on_request, sv, on_done, err, errlen);
	if (!d) {
		free(sv);
		return -1;
	}
	int sig;
	while ((sig = sigwaitinfo(&set, NULL)) < 0 && errno == EINTR)
		;
	MHD_stop_daemon(d);
	free(sv);
	return 0;
}
