// SPDX-License-Identifier: MIT
/*
 * p99sim: ingero-record's --p99-over rule (cmd/ingero-record/p99.c) run on
 * seconds described on stdin, without a recorder or a clock, for
 * tests/cli/ingero-record/flight-p99-rule.sh.  Not a user command.
 *
 *   p99sim FACTOR <script
 *
 * Each script line is one second: the calls completed in it, as words
 * PID:OP:CALLS:DUR_NS (CALLS calls of op OP in process PID, DUR_NS each);
 * "N*" before a line repeats it N times; # starts a comment.  After each
 * second, a fire prints "fire SECOND PID OP RECENT_NS BASE_NS"; at the
 * end, "series N" (the (process, op) pairs held then) is printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ingero/cli.h"
#include "rec.h"

/* discover.c's, which reads /proc: no process here has one */
void rec_proc_comm(uint32_t pid, char *buf, size_t n)
{
	snprintf(buf, n, "sim%u", pid);
}

int main(int argc, char **argv)
{
	ilog_cli_init(argv[0]);
	double f = argc > 1 ? atof(argv[1]) : 0;
	struct rec_p99 *p = f > 1 ? rec_p99_new(f) : NULL;
	if (!p) {
		fprintf(stderr, "p99sim: usage: p99sim FACTOR <script\n");
		return 2;
	}
	char line[65536];
	uint64_t sec = 0;
	while (fgets(line, sizeof(line), stdin)) {
		char *s = line, *end;
		long times = 1;
		if (*s == '#')
			continue;
		long k = strtol(s, &end, 10);
		if (end != s && *end == '*') {
			times = k;
			s = end + 1;
		}
		for (long i = 0; i < times; i++) {
			char buf[65536], *save = NULL;
			snprintf(buf, sizeof(buf), "%s", s);
			for (char *w = strtok_r(buf, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
				unsigned pid, op;
				unsigned long calls;
				unsigned long long dur;
				if (sscanf(w, "%u:%u:%lu:%llu", &pid, &op, &calls, &dur) != 4) {
					fprintf(stderr, "p99sim: bad word '%s'\n", w);
					return 2;
				}
				for (unsigned long c = 0; c < calls; c++)
					rec_p99_add(p, pid, op, dur);
			}
			struct rec_p99_fire fire;
			if (rec_p99_second(p, &fire))
				printf("fire %llu %u %u %llu %llu\n", (unsigned long long)sec, fire.pid,
				       fire.op, (unsigned long long)fire.recent_ns,
				       (unsigned long long)fire.base_ns);
			sec++;
		}
	}
	printf("series %u\n", rec_p99_series(p));
	rec_p99_free(p);
	return 0;
}
