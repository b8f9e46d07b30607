// SPDX-License-Identifier: MIT
/*
 * kindbytes: how many records of each kind a log holds and how many bytes
 * they take encoded (msgpack, before compression), for tests that bound
 * what a record kind costs (tests/cli/ingero-record/python-size.sh).  Not
 * a user command.
 *
 *   kindbytes LOG      prints "KIND COUNT BYTES" per kind present, by kind
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "ingero/cli.h"

#define MAX_KIND 256

int main(int argc, char **argv)
{
	ilog_cli_init(argv[0]);
	if (argc != 2) {
		ilog_errorf("usage: kindbytes LOG");
		return ILOG_EXIT_USAGE;
	}
	int fd = ilog_open_in(argv[1]);
	if (fd < 0)
		return ILOG_EXIT_USAGE;
	char err[256];
	struct ilog_reader *r = ilog_reader_open(fd, err, sizeof(err));
	if (!r) {
		ilog_errorf("%s: %s", argv[1], err);
		return ILOG_EXIT_USAGE;
	}
	static unsigned long long count[MAX_KIND], bytes[MAX_KIND];
	const struct ilog_record *rec;
	int rc;
	while ((rc = ilog_reader_next(r, &rec)) == 1) {
		if (rec->kind >= MAX_KIND)
			continue;
		count[rec->kind]++;
		bytes[rec->kind] += rec->raw.n;
	}
	if (rc < 0) {
		ilog_errorf("%s: %s", argv[1], ilog_reader_error(r));
		return ILOG_EXIT_USAGE;
	}
	ilog_reader_close(r);
	for (unsigned k = 0; k < MAX_KIND; k++) {
		if (!count[k])
			continue;
		const char *name = ilog_kind_name(k);
		if (name)
			printf("%s %llu %llu\n", name, count[k], bytes[k]);
		else
			printf("%u %llu %llu\n", k, count[k], bytes[k]);
	}
	return ilog_finish_stdout(ILOG_EXIT_OK);
}
