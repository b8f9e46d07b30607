# SPDX-License-Identifier: MIT
# sessions.complete says whether the session holds its whole input: 1 for a
# whole log, 0 for a truncated one (the export keeps the records before the
# damage and exits 2) and for one of two inputs missing.
set -uo pipefail
d=$INGERO_TESTS/data
ingero-export --format sqlite -o run.db "$d/training.ilog"; echo "whole: exit $?"
ingero-export --format sqlite -o run.db "$d/truncated.ilog" 2>/dev/null; echo "truncated: exit $?"
ingero-export --format sqlite -o run.db "$d/training.ilog" missing.ilog 2>/dev/null; echo "one missing: exit $?"
sqlite3 -separator ' ' run.db 'SELECT seq, complete, events > 0 FROM sessions ORDER BY seq'
