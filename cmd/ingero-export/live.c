// SPDX-License-Identifier: MIT
/*
 * ingero-export's live modes: --listen serves the live metrics of the
 * stream at /metrics (Prometheus text format), --format otlp --url pushes
 * them (OTLP/HTTP JSON) every --interval.  One thread reads the stream and
 * only ever waits on its input; the HTTP server runs on its own thread and
 * the pushes on the main one, so neither a slow scraper nor a receiver
 * that is down holds the stream up: a push that cannot be made in time is
 * dropped and counted (ingero_export_otlp_pushes_total).
 */
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "ingero/http.h"
#include "ingero/io.h"
#include "live.h"

/* ---- the stream's reader thread ---- */

struct reader {
	struct ilog_live *l;
	const struct export_live_opts *o;
	int rc;
	uint64_t total, kept;
	char err[512];
};

static void *read_stream(void *arg)
{
	struct reader *rd = arg;
	struct ilog_inputs in;
	const struct ilog_record *rec;
	ilog_inputs_start(&in, rd->o->inputs, rd->o->ninputs, 1u << 20);
	while (ilog_inputs_next(&in, &rec) > 0) {
		if (!ilog_filter_match(rd->o->filt, rec, in.r) && rec->kind != ILOG_K_HEADER)
			continue;
		rd->kept++;
		if (ilog_live_add(rd->l, rec, in.r)) {
			snprintf(rd->err, sizeof(rd->err), "out of memory");
			break;
		}
	}
	ilog_inputs_end(&in);
	rd->total = in.total;
	rd->rc = rd->err[0] ? ILOG_EXIT_USAGE : in.rc;
	if (!rd->err[0] && ilog_live_end(rd->l)) {
		snprintf(rd->err, sizeof(rd->err), "out of memory");
		rd->rc = ILOG_EXIT_USAGE;
	}
	kill(getpid(), SIGUSR1); /* the main thread waits for it */
	return NULL;
}

/* ---- /metrics ---- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct ilog_live *l = cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)con_cls;
	static const char text[] = "text/plain; version=0.0.4; charset=utf-8";
	if (strcmp(url, "/metrics")) {
		static const char nf[] = "ingero-export serves /metrics\n";
		return ilog_http_reply(c, MHD_HTTP_NOT_FOUND, "text/plain", nf, sizeof(nf) - 1, NULL,
				       NULL);
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return ilog_http_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "", 0, "Allow",
				       "GET, HEAD");
	struct ilog_buf b = { 0 };
	if (ilog_live_prometheus(l, &b)) {
		ilog_buf_free(&b);
		return ilog_http_reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
				       "out of memory\n", 14, NULL, NULL);
	}
	enum MHD_Result rc = ilog_http_reply(c, MHD_HTTP_OK, text, b.p ? b.p : "", b.len, NULL, NULL);
	ilog_buf_free(&b);
	return rc;
}

/* ---- OTLP pushes ---- */

static size_t discard(char *p, size_t size, size_t n, void *arg)
{
	(void)p;
	(void)arg;
	return size * n;
}

/* One POST of the current metrics, at most timeout_ms.  0 when the
 * receiver took it (2xx), else -1 with why in err. */
static int push_once(struct ilog_live *l, CURL *cu, const char *url, long timeout_ms, char *err,
		     size_t errlen)
{
	struct ilog_buf b = { 0 };
	if (ilog_live_otlp(l, &b)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	char cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
	curl_easy_setopt(cu, CURLOPT_URL, url);
	curl_easy_setopt(cu, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(cu, CURLOPT_POSTFIELDS, b.p);
	curl_easy_setopt(cu, CURLOPT_POSTFIELDSIZE, (long)b.len);
	curl_easy_setopt(cu, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, cerr);
	CURLcode cc = curl_easy_perform(cu);
	long status = 0;
	curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	ilog_buf_free(&b);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "%s", cerr[0] ? cerr : curl_easy_strerror(cc));
		return -1;
	}
	if (status < 200 || status > 299) {
		snprintf(err, errlen, "HTTP status %ld", status);
		return -1;
	}
	return 0;
}

/* ---- the main thread: signals, linger, pushes ---- */

static struct timespec ts_of(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
}

int export_live(const struct export_live_opts *o)
{
	struct ilog_live_opts lo = { o->window_ns, o->chain_window_ns, *o->analysis };
	struct ilog_live *l = ilog_live_new(&lo);
	if (!l) {
		ilog_errorf("out of memory");
		return ILOG_EXIT_USAGE;
	}
	/* every thread started from here on has these blocked; the main
	 * thread takes them with sigtimedwait */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	char err[512];
	struct MHD_Daemon *d = NULL;
	CURL *cu = NULL;
	int rc = ILOG_EXIT_OK, ended = 0;
	if (o->listen && !(d = ilog_http_start(o->listen, on_request, l, NULL, err, sizeof(err)))) {
		ilog_errorf("--listen: %s", err);
		ilog_live_free(l);
		return ILOG_EXIT_USAGE;
	}
	if (o->url) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		if (!(cu = curl_easy_init())) {
			ilog_errorf("--url: cannot start libcurl");
			rc = ILOG_EXIT_USAGE;
			goto out;
		}
	}
	if (ILOG_VERBOSE(1)) {
		if (o->listen)
			fprintf(stderr, "%s: serving http://%s/metrics\n", ilog_prog, o->listen->text);
		if (o->url)
			fprintf(stderr, "%s: pushing to %s every %g s\n", ilog_prog, o->url,
				(double)o->interval_ns / 1e9);
	}
	struct reader rd = { .l = l, .o = o };
	pthread_t th;
	if (pthread_create(&th, NULL, read_stream, &rd)) {
		ilog_errorf("cannot start the reader: %s", strerror(errno));
		rc = ILOG_EXIT_USAGE;
		goto out;
	}
	/* Pushes: one per interval.  A failed one is retried with doubling
	 * backoff (from 1 s, capped at the interval), always with the newest
	 * metrics (they are cumulative: the newest supersedes the rest);
	 * intervals that pass meanwhile are dropped and counted. */
	long timeout_ms = (long)(o->interval_ns / 1000000);
	if (timeout_ms > 10000)
		timeout_ms = 10000;
	if (timeout_ms < 100)
		timeout_ms = 100;
	uint64_t now = ilog_mono_ns(), next_push = now + o->interval_ns, due = 0, backoff = 0;
	uint64_t linger_end = 0;
	int stop = 0, failing = 0;
	while (!stop) {
		uint64_t wake = UINT64_MAX;
		if (cu)
			wake = next_push;
		if (ended && linger_end < wake)
			wake = linger_end;
		now = ilog_mono_ns();
		int sig;
		if (wake == UINT64_MAX) {
			sig = sigwaitinfo(&set, NULL);
		} else {
			struct timespec ts = ts_of(wake > now ? wake - now : 0);
			sig = sigtimedwait(&set, NULL, &ts);
		}
		if (sig == SIGTERM || sig == SIGINT) {
			if (ILOG_VERBOSE(1))
				fprintf(stderr, "%s: %s: stopping\n", ilog_prog, strsignal(sig));
			stop = 1;
		} else if (sig == SIGUSR1 && !ended) {
			pthread_join(th, NULL);
			ended = 1;
			rc = rd.rc;
			if (rd.err[0])
				ilog_errorf("%s", rd.err);
			linger_end = ilog_mono_ns() + o->linger_ns;
			if (ILOG_VERBOSE(1))
				fprintf(stderr, "%s: end of the stream: %llu records, %llu passed the "
					"filters; lingering %g s\n", ilog_prog,
					(unsigned long long)rd.total, (unsigned long long)rd.kept,
					(double)o->linger_ns / 1e9);
			if (cu)
				next_push = 0; /* the final figures, now */
		}
		now = ilog_mono_ns();
		if (ended && now >= linger_end && !cu)
			stop = 1;
		if (cu && (now >= next_push || stop)) {
			/* ticks that passed while we could not push */
			if (due && now > due + o->interval_ns && !stop) {
				uint64_t missed = (now - due) / o->interval_ns;
				for (uint64_t k = 0; k < missed; k++)
					ilog_live_push_count(l, ILOG_PUSH_DROPPED);
				due += missed * o->interval_ns;
			}
			if (!push_once(l, cu, o->url, timeout_ms, err, sizeof(err))) {
				ilog_live_push_count(l, ILOG_PUSH_SENT);
				if (failing && ILOG_VERBOSE(0))
					ilog_warnf("--url: %s: pushing again", o->url);
				failing = 0;
				backoff = 0;
				due = ilog_mono_ns();
				next_push = due + o->interval_ns;
			} else {
				ilog_live_push_count(l, ILOG_PUSH_FAILED);
				if (!failing && ILOG_VERBOSE(0))
					ilog_warnf("--url: %s: %s (retrying; the stream goes on)", o->url, err);
				failing = 1;
				if (!due)
					due = now;
				backoff = backoff ? backoff * 2 : 1000000000ull;
				if (backoff > o->interval_ns)
					backoff = o->interval_ns;
				next_push = ilog_mono_ns() + backoff;
			}
			if (ended && ilog_mono_ns() >= linger_end)
				stop = 1;
		}
	}
	if (!ended) {
		/* SIGTERM mid-stream: the reader may be blocked in read(); it
		 * is left to the process's exit */
		rc = ILOG_EXIT_OK;
	}
out:
	if (d)
		MHD_stop_daemon(d);
	if (cu)
		curl_easy_cleanup(cu);
	if (o->url)
		curl_global_cleanup();
	if (!ended && rc == ILOG_EXIT_OK)
		exit(ilog_finish_stdout(rc)); /* (SIGTERM) */ /* do not free what the reader may touch */
	ilog_live_free(l);
	return rc;
}
