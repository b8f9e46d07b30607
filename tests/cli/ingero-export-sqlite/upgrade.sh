# SPDX-License-Identifier: MIT
# A database of schema version 1 (before pystacks.entry) is upgraded in place
# when a session is appended: the column is added (empty for the old rows),
# the old session's rows stay as they were, the new pystacks carry entry.
# Any other version is refused.
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
$synth --events 2000 --seed 3 -o a.ilog
ingero-export -f sqlite -o run.db "$INGERO_TESTS/vectors/kinds.ilog"
# make it what schema version 1 wrote
sqlite3 run.db 'ALTER TABLE pystacks DROP COLUMN entry; PRAGMA user_version = 1'
sqlite3 run.db 'SELECT count(*) FROM pystacks'
ingero-export -f sqlite -o run.db "$INGERO_TESTS/vectors/kinds.ilog" a.ilog && echo "appended"
sqlite3 run.db 'PRAGMA user_version'
sqlite3 -separator ' ' run.db 'SELECT s.seq, p.depth, quote(p.entry) FROM pystacks p
	JOIN sessions s USING (session_id) ORDER BY s.seq'
sqlite3 run.db 'PRAGMA integrity_check'
sqlite3 run.db 'PRAGMA user_version = 7'
ingero-export -f sqlite -o run.db a.ilog 2>&1
echo "exit $?"
