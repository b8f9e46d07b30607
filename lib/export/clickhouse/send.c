// SPDX-License-Identifier: MIT
/*
 * --format clickhouse, the sender thread: POSTs finished batches, retries
 * with backoff, and after a broken connection settles how many of a
 * batch's rows landed so that nothing is lost or doubled (clickhouse.c's
 * header comment has the delivery rules).  The caller's thread fills the
 * batches (clickhouse.c); struct ch is shared under its mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ingero/io.h"
#include "clickhouse.h"

/* "Code: 81" or "Code: 60": the database or a table is not there. */
const char *ilog_ch_hint(const char *err)
{
	if (strstr(err, "Code: 81,") || strstr(err, "Code: 60,"))
		return " (--create makes the database and tables)";
	/* 16: no such column in table (one made by an older version) */
	return strstr(err, "Code: 16,") ? " (--create adds the columns this version has to the "
					  "tables an older one made)" : "";
}

/* Set the first error (later ones are consequences).  Under mu. */
void ilog_ch_fail_locked(struct ch *s, const char *fmt, ...)
{
	if (s->failed)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	s->failed = 1;
	pthread_cond_broadcast(&s->wake_main);
	pthread_cond_broadcast(&s->wake_sender);
}

/* ---- the sender ---- */

int ilog_ch_answer_u64(const struct ilog_buf *b, uint64_t *v)
{
	char *end;
	if (!b->len)
		return -1;
	errno = 0;
	*v = strtoull(b->p, &end, 10);
	return errno || end == b->p || (*end && *end != '\n') ? -1 : 0;
}

/* A count from the server, retried until deadline.  0, or -1 with why. */
int ilog_ch_ask_count(struct ch *s, const char *q, uint64_t deadline, uint64_t *v, char *why,
		     size_t whylen)
{
	uint64_t now = ilog_mono_ns();
	if (ilog_ch_http_post_retry(s->http, q, NULL, 0, NULL, 1,
				    deadline > now ? (deadline - now) / 1000000 : 0, NULL, &s->resp,
				    why, whylen) != ILOG_CH_OK)
		return -1;
	if (ilog_ch_answer_u64(&s->resp, v)) {
		snprintf(why, whylen, "unexpected answer '%.40s'", s->resp.p);
		return -1;
	}
	return 0;
}

/* How long a count must stay put, with the INSERT not running, before it
 * is believed: a request still queued in the server is not in
 * system.processes yet. */
#define SETTLE_GRACE_NS (250ull * 1000000ull)

/*
 * After a broken connection: how many of this session's rows table t
 * holds once the INSERT with query id qid is over.  0, or -1 with why
 * filled when the server could not tell before the deadline.
 */
static int settle(struct ch *s, enum ilog_ch_table t, const char *qid, uint64_t deadline,
		  uint64_t *rows, char *why, size_t whylen)
{
	char running[192], count[192];
	uint64_t v, last = UINT64_MAX;
	snprintf(running, sizeof(running),
		 "SELECT count() FROM system.processes WHERE query_id = '%s'", qid);
	snprintf(count, sizeof(count), "SELECT count() FROM %s.%s WHERE session_id = %llu", s->db,
		 ilog_ch_tables[t].name, (unsigned long long)s->session);
	for (unsigned n = 0;; n++) {
		if (ilog_ch_ask_count(s, running, deadline, &v, why, whylen))
			return -1;
		if (!v) {
			if (ilog_ch_ask_count(s, count, deadline, &v, why, whylen))
				return -1;
			if (v == last) {
				*rows = v;
				return 0;
			}
			last = v;
			uint64_t now = ilog_mono_ns();
			if (now + SETTLE_GRACE_NS > deadline)
				break;
			struct timespec ts = { 0, (long)SETTLE_GRACE_NS };
			while (nanosleep(&ts, &ts) && errno == EINTR)
				;
			continue;
		}
		if (ilog_ch_backoff(n < 3 ? n : 3, deadline))
			break;
	}
	snprintf(why, whylen, "the insert was still running or its rows still arriving at the "
		 "deadline");
	return -1;
}

/* Deliver one batch; 0, or -1 with the error set (mu not held). */
static int send_batch(struct ch *s, struct batch *b)
{
	const struct ilog_ch_table_def *d = &ilog_ch_tables[b->t];
	uint64_t t0 = ilog_mono_ns(), deadline = t0 + s->retry_ms * 1000000ull;
	uint64_t done = 0;             /* rows of b the table is known to hold */
	unsigned tries = 0;
	char err[512];
	/* One query id for every try of a batch: the server runs one query
	 * of an id at a time, so a try cannot overlap an earlier one that it
	 * still has (it answers Code 216, and the sender settles again). */
	s->seq++;
	snprintf(s->qid, sizeof(s->qid), "ingero-%016llx-%s-%llu", (unsigned long long)s->session,
		 d->name, (unsigned long long)s->seq);
	for (unsigned n = 0;; n++) {
		size_t off = done ? b->offs[done] : 0;
		enum ilog_ch_result r = ilog_ch_http_post(s->http, s->sql[b->t], b->rows.p + off,
							  b->rows.len - off, s->qid, &s->resp, err,
							  sizeof(err));
		tries++;
		if (r == ILOG_CH_OK) {
			s->confirmed[b->t] += b->nrows;
			return 0;
		}
		if (r == ILOG_CH_REFUSED) {
			pthread_mutex_lock(&s->mu);
			ilog_ch_fail_locked(s, "%s: insert refused: %s%s", d->name, err, ilog_ch_hint(err));
			pthread_mutex_unlock(&s->mu);
			return -1;
		}
		if (r == ILOG_CH_UNKNOWN && d->counted) {
			uint64_t have;
			char why[256];
			/* finding out gets a window of its own: the server answered
			 * the connection a moment ago, the retries may have used theirs */
			if (settle(s, b->t, s->qid, ilog_mono_ns() + s->retry_ms * 1000000ull, &have,
				   why, sizeof(why))) {
				pthread_mutex_lock(&s->mu);
				ilog_ch_fail_locked(s, "%s: %s, and what the server kept of the batch is "
					    "unknown (%s): session %llu may hold part of %llu rows",
					    d->name, err, why, (unsigned long long)s->session,
					    (unsigned long long)b->nrows);
				pthread_mutex_unlock(&s->mu);
				return -1;
			}
			uint64_t base = s->confirmed[b->t] + done;
			if (have < base || have > s->confirmed[b->t] + b->nrows) {
				pthread_mutex_lock(&s->mu);
				ilog_ch_fail_locked(s, "%s: %s; the table holds %llu rows of session %llu, "
					    "expected %llu to %llu: delete them (ALTER TABLE %s.%s "
					    "DELETE WHERE session_id = %llu) and export again",
					    d->name, err, (unsigned long long)have,
					    (unsigned long long)s->session, (unsigned long long)base,
					    (unsigned long long)(s->confirmed[b->t] + b->nrows), s->db,
					    d->name, (unsigned long long)s->session);
				pthread_mutex_unlock(&s->mu);
				return -1;
			}
			/* the server kept a prefix: send the rest only */
			done = have - s->confirmed[b->t];
			if (done == b->nrows) {
				s->confirmed[b->t] += b->nrows;
				return 0;
			}
		}
		if (ilog_ch_backoff(n, deadline)) {
			char kept[160] = "";
			if (done)
				snprintf(kept, sizeof(kept), "; the table holds the first %llu of this "
					 "batch's %llu rows (session %llu)", (unsigned long long)done,
					 (unsigned long long)b->nrows, (unsigned long long)s->session);
			pthread_mutex_lock(&s->mu);
			ilog_ch_fail_locked(s, "%s: %.300s (%u tries in %.1f s)%s", d->name, err, tries,
				    (double)(ilog_mono_ns() - t0) / 1e9, kept);
			pthread_mutex_unlock(&s->mu);
			return -1;
		}
	}
}

/* A table's open batch is finished: to the back of the queue (under mu). */
void ilog_ch_enqueue_locked(struct ch *s, enum ilog_ch_table t)
{
	struct batch *b = s->cur[t];
	s->cur[t] = NULL;
	b->next = NULL;
	if (s->qtail)
		s->qtail->next = b;
	else
		s->qhead = b;
	s->qtail = b;
	s->queued++;
}

/* Finish every open batch (under mu). */
void ilog_ch_finish_all_locked(struct ch *s)
{
	for (int t = 0; t < ILOG_CH__COUNT; t++)
		if (s->cur[t])
			ilog_ch_enqueue_locked(s, (enum ilog_ch_table)t);
}

void *ilog_ch_sender(void *arg)
{
	struct ch *s = arg;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		if (s->failed)
			break;
		if (s->qhead) {
			struct batch *b = s->qhead;
			s->qhead = b->next;
			if (!s->qhead)
				s->qtail = NULL;
			pthread_mutex_unlock(&s->mu);
			int rc = send_batch(s, b);
			pthread_mutex_lock(&s->mu);
			b->rows.len = 0;
			b->nrows = 0;
			b->next = s->spare;
			s->spare = b;
			s->queued--;
			pthread_cond_broadcast(&s->wake_main);
			if (rc)
				break;
			continue;
		}
		/* the oldest open batch decides when to flush them all: fewer,
		 * larger inserts (each insert is a part on the server) */
		uint64_t oldest = 0;
		for (int t = 0; t < ILOG_CH__COUNT; t++)
			if (s->cur[t] && (!oldest || s->cur[t]->born_ns < oldest))
				oldest = s->cur[t]->born_ns;
		if (s->closing) {
			if (!oldest)
				break;
			ilog_ch_finish_all_locked(s);
			continue;
		}
		if (oldest && ilog_mono_ns() >= oldest + FLUSH_NS) {
			ilog_ch_finish_all_locked(s);
			continue;
		}
		if (oldest) {
			uint64_t at = oldest + FLUSH_NS;
			struct timespec ts = { (time_t)(at / 1000000000ull), (long)(at % 1000000000ull) };
			pthread_cond_timedwait(&s->wake_sender, &s->mu, &ts);
		} else {
			pthread_cond_wait(&s->wake_sender, &s->mu);
		}
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

