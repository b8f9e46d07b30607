# SPDX-License-Identifier: MIT
# --db has no short letter (-d is --duration in ingero-record): the old
# -d FILE is refused with one line naming --db, exit 2, nothing on stdout.
set -uo pipefail
rc=0
ingero-mcp -d run.db </dev/null >out.txt 2>err.txt || rc=$?
echo "exit $rc, stdout $(wc -c <out.txt) bytes: $(cat err.txt)"
ingero-mcp --help | grep -c -- '-d, --db' || true
