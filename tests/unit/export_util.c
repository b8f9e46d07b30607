// SPDX-License-Identifier: MIT
/* lib/export/util.c: the nesting check that keeps Perfetto slices
 * pairable. */
#include "test.h"
#include "export_int.h"


/* Perfetto's view of a track: slices sorted by start, ties in written
 * order; a slice must nest in or follow the ones before it.  Returns the
 * number of violations of the rule lib/export/util.c keeps. */
static int pairs_bad(const uint64_t *s, const uint64_t *e, int n)
{
	int bad = 0;
	for (int j = 0; j < n; j++)
		for (int i = 0; i < j; i++) {
			/* i written before j */
			int ok = s[j] >= e[i] || e[j] < s[i] || (s[i] <= s[j] && e[j] < e[i]) ||
				 (s[j] < s[i] && e[i] <= e[j]);
			bad += !ok;
		}
	return bad;
}

static void test_nesting(void)
{
	struct ilog_tracks t = { 0 };
	int isnew;
	struct check c;
	uint64_t s[60], e[60];
	/* calls as a thread makes them: children return (are written) before
	 * their parents, siblings in order; nothing may be clipped */
	int tr = ilog_tracks_thread(&t, 0, 1, 1, &isnew);
	int clipped = 0;
	uint64_t now = 1000;
	for (int k = 0; k < 2000; k++) {
		uint64_t ps = now, cs = ps + 10 + t_rnd() % 50, ce = cs + 1 + t_rnd() % 100;
		uint64_t pe = ce + 1 + t_rnd() % 30;
		clipped += ilog_tracks_fit(&t, tr, cs, ce) != ce;
		clipped += ilog_tracks_fit(&t, tr, ps, pe) != pe;
		now = pe + t_rnd() % 20;
	}
	is_u64(clipped, 0, "nesting: calls that nest (child written first) are never clipped");
	/* a long preemption, then 200 short calls inside it, the last one
	 * crossing its end: only that one is clipped, to end inside */
	tr = ilog_tracks_thread(&t, 0, 1, 2, &isnew);
	ilog_tracks_fit(&t, tr, 100000, 200000);
	clipped = 0;
	uint64_t last = 0;
	for (int k = 0; k < 200; k++) {
		uint64_t cs = 100010 + (uint64_t)k * 500, ce = cs + (k == 199 ? 5000 : 300);
		last = ilog_tracks_fit(&t, tr, cs, ce);
		clipped += last != ce;
	}
	ok(clipped == 1 && last == 199999,
	   "nesting: a long slice is remembered past %d later ones (clipped %d, end %" PRIu64 ")",
	   ILOG_NEST_RECENT, clipped, last);
	/* random slices: whatever the overlaps, the fitted ones nest */
	check_begin(&c);
	for (int round = 0; round < 300; round++) {
		tr = ilog_tracks_thread(&t, 1, 1, (uint32_t)round + 10, &isnew);
		int n = 10 + (int)(t_rnd() % 50);
		for (int i = 0; i < n; i++) {
			s[i] = t_rnd() % 1000;
			uint64_t want = s[i] + t_rnd() % 300;
			e[i] = ilog_tracks_fit(&t, tr, s[i], want);
			if (e[i] < s[i] || e[i] > want)
				check_fail(&c, "round %d: slice %d fitted outside [start, end]", round, i);
		}
		int bad = pairs_bad(s, e, n);
		if (bad)
			check_fail(&c, "round %d: %d pairs do not nest", round, bad);
	}
	check_end(&c, "nesting: 300 rounds of random overlapping slices all nest once fitted");
	ilog_tracks_free(&t);
}

int main(void)
{
	test_nesting();
	return done_testing();
}
