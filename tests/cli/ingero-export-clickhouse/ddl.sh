# SPDX-License-Identifier: MIT
# --format clickhouse-sql: the DDL runs in clickhouse-client (twice: it is
# idempotent) and makes exactly the tables --create makes; it holds only
# syntax both 18.16 and current servers accept; it reads no log.
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
start_ch 1

ingero-export --format clickhouse-sql --database viaddl >ddl.sql 2>err.txt
[[ ! -s err.txt ]] || fail "stderr: $(cat err.txt)"
for i in 1 2; do
	clickhouse-client --port "$CH_TCP1" -n <ddl.sql || fail "the DDL failed (run $i)"
done
"$SYNTH" --events 10 -o tiny.ilog
export_ch --url "$CH_URL" --database viacreate --create tiny.ilog || fail "--create"
chq "$CH_URL" "SELECT name FROM system.tables WHERE database = 'viaddl' ORDER BY name" >ddl.tables
chq "$CH_URL" "SELECT name FROM system.tables WHERE database = 'viacreate' ORDER BY name" >create.tables
same "tables" ddl.tables create.tables
tr '\n' ' ' <ddl.tables
echo
for t in $(cat ddl.tables); do
	chq "$CH_URL" "SHOW CREATE TABLE viaddl.$t" | sed 's/viaddl/DB/g' >a.sql
	chq "$CH_URL" "SHOW CREATE TABLE viacreate.$t" | sed 's/viacreate/DB/g' >b.sql
	same "table $t" a.sql b.sql
done
echo "the DDL makes what --create makes"

# what 18.16 lacks or CI must not use
if grep -n -i -E 'DateTime64|CODEC|TTL|Nullable' ddl.sql; then
	fail "syntax beyond ClickHouse 18.16"
fi
grep -c '^CREATE TABLE' ddl.sql | sed 's/^/CREATE TABLE statements: /'
grep -c 'ENGINE = Distributed(ingero, viaddl, ' ddl.sql | sed 's/^/Distributed tables: /'

# without --database: the database ingero
ingero-export --format clickhouse-sql | grep '^CREATE DATABASE'
# it reads no log, and says so when given one
rc=0
ingero-export --format clickhouse-sql tiny.ilog >out.txt 2>err.txt || rc=$?
echo "with a log: exit $rc: $(cat err.txt)"
rc=0
ingero-export --format clickhouse-sql --database 'a-b' >out.txt 2>err.txt || rc=$?
echo "bad name: exit $rc: $(cat err.txt)"
