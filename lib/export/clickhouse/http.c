// SPDX-License-Identifier: MIT
/*
 * The ClickHouse HTTP interface through libcurl: one POST per statement
 * or batch on a kept-alive connection, each failure sorted by what it
 * allows next (a retry, a check of what landed, or giving up), and retries
 * spaced by doubling backoff.  libcurl rather than our own HTTP: redirects
 * aside, a client has to get chunked answers, keep-alive, proxies
 * (http_proxy), TLS and credentials right, and libcurl does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <curl/curl.h>
#include "ingero/io.h"
#include "clickhouse.h"

struct ilog_ch_http {
	CURL *c;
	struct curl_slist *hdr_insert, *hdr_query;
	char *base;              /* the URL, ready for "query=..." */
	char *label;             /* the URL with its password hidden */
	struct ilog_buf url;     /* per request */
	struct ilog_buf *resp;   /* where the answer goes */
	char cerr[CURL_ERROR_SIZE];
};

int ilog_ch_backoff(unsigned n, uint64_t deadline_ns)
{
	uint64_t ms = ILOG_CH_BACKOFF0_MS;
	for (unsigned i = 0; i < n && ms < ILOG_CH_BACKOFF_MAX_MS; i++)
		ms *= 2;
	if (ms > ILOG_CH_BACKOFF_MAX_MS)
		ms = ILOG_CH_BACKOFF_MAX_MS;
	uint64_t now = ilog_mono_ns();
	if (now >= deadline_ns)
		return -1;
	uint64_t ns = ms * 1000000ull;
	if (ns > deadline_ns - now)
		ns = deadline_ns - now;
	struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return 0;
}

static size_t on_data(char *p, size_t size, size_t n, void *arg)
{
	struct ilog_ch_http *h = arg;
	size_t len = size * n;
	/* an error text is all we read from answers; keep 1 MiB at most */
	if (h->resp && h->resp->len < (1u << 20) && ilog_buf_put(h->resp, p, len))
		return 0;
	return len;
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

struct ilog_ch_http *ilog_ch_http_new(const char *url, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *pass = NULL, *full = NULL, *query = NULL;
	struct ilog_ch_http *h = NULL;
	if (!u) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	CURLUcode uc = curl_url_set(u, CURLUPART_URL, url, 0);
	if (uc || curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) ||
	    (strcmp(scheme, "http") && strcmp(scheme, "https"))) {
		snprintf(err, errlen, "--url: not an http:// or https:// URL '%s'%s%s", url,
			 uc ? ": " : "", uc ? curl_url_strerror(uc) : "");
		goto out;
	}
	if (!(h = calloc(1, sizeof(*h))) || curl_url_get(u, CURLUPART_URL, &full, 0))
		goto oom;
	int has_query = !curl_url_get(u, CURLUPART_QUERY, &query, 0) && query && *query;
	size_t n = strlen(full);
	if (!(h->base = malloc(n + 2)))
		goto oom;
	memcpy(h->base, full, n);
	h->base[n] = has_query ? '&' : '?';
	h->base[n + 1] = 0;
	/* the label: no password, whether in the user part or the query */
	if (!curl_url_get(u, CURLUPART_PASSWORD, &pass, 0) && pass &&
	    curl_url_set(u, CURLUPART_PASSWORD, "***", 0))
		goto oom;
	if (has_query && strstr(query, "password") && curl_url_set(u, CURLUPART_QUERY, "***", 0))
		goto oom;
	curl_free(full);
	full = NULL;
	if (curl_url_get(u, CURLUPART_URL, &full, 0) || !(h->label = dup_str(full)))
		goto oom;
	if (!(h->c = curl_easy_init()))
		goto oom;
	/* no "Expect: 100-continue" wait before large bodies */
	h->hdr_insert = curl_slist_append(NULL, "Expect:");
	h->hdr_insert = curl_slist_append(h->hdr_insert, "Content-Type: application/octet-stream");
	h->hdr_query = curl_slist_append(NULL, "Expect:");
	h->hdr_query = curl_slist_append(h->hdr_query, "Content-Type: text/plain; charset=UTF-8");
	if (!h->hdr_insert || !h->hdr_query)
		goto oom;
	curl_easy_setopt(h->c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h->c, CURLOPT_ERRORBUFFER, h->cerr);
	curl_easy_setopt(h->c, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(h->c, CURLOPT_WRITEDATA, h);
	curl_easy_setopt(h->c, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
	/* a server that takes nothing and says nothing for two minutes is gone */
	curl_easy_setopt(h->c, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h->c, CURLOPT_LOW_SPEED_TIME, 120L);
	curl_easy_setopt(h->c, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h->c, CURLOPT_USERAGENT, "ingero-export/" INGERO_VERSION);
	curl_easy_setopt(h->c, CURLOPT_POST, 1L);
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
	ilog_ch_http_free(h);
	h = NULL;
out:
	curl_free(scheme);
	curl_free(host);
	curl_free(pass);
	curl_free(full);
	curl_free(query);
	curl_url_cleanup(u);
	return h;
}

void ilog_ch_http_free(struct ilog_ch_http *h)
{
	if (!h)
		return;
	if (h->c)
		curl_easy_cleanup(h->c);
	curl_slist_free_all(h->hdr_insert);
	curl_slist_free_all(h->hdr_query);
	free(h->base);
	free(h->label);
	ilog_buf_free(&h->url);
	free(h);
}

const char *ilog_ch_http_label(const struct ilog_ch_http *h)
{
	return h->label;
}

/* ClickHouse error codes that mean "busy, try later" rather than "no". */
static int busy_code(long code)
{
	switch (code) {
	case 159: /* TIMEOUT_EXCEEDED */
	case 202: /* TOO_MANY_SIMULTANEOUS_QUERIES */
	case 209: /* SOCKET_TIMEOUT */
	case 210: /* NETWORK_ERROR */
	case 241: /* MEMORY_LIMIT_EXCEEDED */
	case 242: /* TABLE_IS_READ_ONLY (replica lost its ZooKeeper session) */
	case 252: /* TOO_MANY_PARTS */
		return 1;
	default:
		return 0;
	}
}

/* The first line of an answer, at most 400 bytes, for a message. */
static void first_line(const struct ilog_buf *b, char *out, size_t outlen)
{
	size_t n = 0;
	while (n < b->len && b->p[n] != '\n' && b->p[n] != '\r')
		n++;
	if (n > 400)
		n = 400;
	snprintf(out, outlen, "%.*s", (int)n, n ? b->p : "");
}

enum ilog_ch_result ilog_ch_http_post(struct ilog_ch_http *h, const char *query,
				      const void *body, size_t len, const char *query_id,
				      struct ilog_buf *resp, char *err, size_t errlen)
{
	h->url.len = 0;
	int bad = ilog_buf_put(&h->url, h->base, strlen(h->base));
	if (body) {
		char *q = curl_easy_escape(h->c, query, 0);
		bad |= !q || ilog_buf_printf(&h->url, "query=%s", q);
		curl_free(q);
	}
	if (query_id)
		bad |= ilog_buf_printf(&h->url, "%squery_id=%s", body ? "&" : "", query_id);
	bad |= ilog_buf_put(&h->url, "", 1);
	if (bad) {
		snprintf(err, errlen, "out of memory");
		return ILOG_CH_REFUSED;
	}
	resp->len = 0;
	h->resp = resp;
	h->cerr[0] = 0;
	curl_easy_setopt(h->c, CURLOPT_URL, h->url.p);
	curl_easy_setopt(h->c, CURLOPT_HTTPHEADER, body ? h->hdr_insert : h->hdr_query);
	curl_easy_setopt(h->c, CURLOPT_POSTFIELDS, body ? body : (const void *)query);
	curl_easy_setopt(h->c, CURLOPT_POSTFIELDSIZE_LARGE,
			 (curl_off_t)(body ? len : strlen(query)));
	CURLcode rc = curl_easy_perform(h->c);
	h->resp = NULL;
	if (ilog_buf_put(resp, "", 1)) {
		snprintf(err, errlen, "out of memory");
		return ILOG_CH_REFUSED;
	}
	resp->len--;
	if (rc != CURLE_OK) {
		const char *why = h->cerr[0] ? h->cerr : curl_easy_strerror(rc);
		curl_off_t sent = 0;
		long hdr = 0;
		curl_easy_getinfo(h->c, CURLINFO_SIZE_UPLOAD_T, &sent);
		curl_easy_getinfo(h->c, CURLINFO_REQUEST_SIZE, &hdr);
		switch (rc) {
		case CURLE_UNSUPPORTED_PROTOCOL:
		case CURLE_URL_MALFORMAT:
		case CURLE_OUT_OF_MEMORY:
		case CURLE_LOGIN_DENIED:
			snprintf(err, errlen, "%s", why);
			return ILOG_CH_REFUSED;
		case CURLE_COULDNT_RESOLVE_PROXY:
		case CURLE_COULDNT_RESOLVE_HOST:
		case CURLE_COULDNT_CONNECT:
		case CURLE_SSL_CONNECT_ERROR:
			snprintf(err, errlen, "cannot connect: %s", why);
			return ILOG_CH_RETRY;
		default:
			/* nothing of the request left us: as good as not connected */
			if (!sent && !hdr) {
				snprintf(err, errlen, "cannot connect: %s", why);
				return ILOG_CH_RETRY;
			}
			snprintf(err, errlen, "connection lost: %s", why);
			return ILOG_CH_UNKNOWN;
		}
	}
	long status = 0;
	curl_easy_getinfo(h->c, CURLINFO_RESPONSE_CODE, &status);
	if (status == 200)
		return ILOG_CH_OK;
	char line[512];
	first_line(resp, line, sizeof(line));
	snprintf(err, errlen, "HTTP %ld: %s", status, line[0] ? line : "(no message)");
	long code = -1;
	if (!strncmp(resp->p, "Code: ", 6))
		code = strtol(resp->p + 6, NULL, 10);
	/* QUERY_WITH_SAME_ID_IS_ALREADY_RUNNING: an earlier try of this very
	 * request is still running, so what lands is not known yet */
	if (code == 216)
		return ILOG_CH_UNKNOWN;
	if (code >= 0)
		return busy_code(code) ? ILOG_CH_RETRY : ILOG_CH_REFUSED;
	/* not ClickHouse speaking (a proxy or load balancer): 5xx pass */
	return status >= 500 ? ILOG_CH_RETRY : ILOG_CH_REFUSED;
}

enum ilog_ch_result ilog_ch_http_post_retry(struct ilog_ch_http *h, const char *query,
					    const void *body, size_t len, const char *query_id,
					    int idempotent, uint64_t retry_ms, unsigned *tries,
					    struct ilog_buf *resp, char *err, size_t errlen)
{
	uint64_t deadline = ilog_mono_ns() + retry_ms * 1000000ull;
	enum ilog_ch_result r;
	for (unsigned n = 0;; n++) {
		r = ilog_ch_http_post(h, query, body, len, query_id, resp, err, errlen);
		if (tries)
			(*tries)++;
		if (r == ILOG_CH_OK || r == ILOG_CH_REFUSED || (r == ILOG_CH_UNKNOWN && !idempotent))
			return r;
		if (ilog_ch_backoff(n, deadline))
			return r;
	}
}
