// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"

const char *ilog_prog = "ingero";
int ilog_verbosity;

void ilog_cli_init(const char *argv0)
{
	const char *s = argv0 ? strrchr(argv0, '/') : NULL;
	ilog_prog = s ? s + 1 : argv0 ? argv0 : "ingero";
}

static void vmsg(const char *tag, const char *fmt, va_list ap)
{
	char line[1024];
	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s%s\n", ilog_prog, tag, line);
}

void ilog_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void ilog_warnf(const char *fmt, ...)
{
	va_list ap;
	if (ilog_verbosity < 0)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

const char *ilog_in_name(const char *path)
{
	return !path || !strcmp(path, "-") ? "(stdin)" : path;
}

int ilog_open_in(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return STDIN_FILENO;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		ilog_errorf("%s: %s", path, strerror(errno));
	return fd;
}

int ilog_open_out(const char *path)
{
	if (!path || !strcmp(path, "-"))
		return STDOUT_FILENO;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		ilog_errorf("%s: %s", path, strerror(errno));
	return fd;
}

int ilog_refuse_tty(int fd, const char *what)
{
	if (isatty(fd)) {
		ilog_errorf("refusing to write %s to a terminal (use -o FILE or a pipe)", what);
		return -1;
	}
	return 0;
}

int ilog_finish_stdout(int rc)
{
	if (fflush(stdout) || ferror(stdout)) {
		ilog_errorf("write error on stdout: %s", strerror(errno));
		return ILOG_EXIT_USAGE;
	}
	return rc;
}
