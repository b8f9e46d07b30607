# SPDX-License-Identifier: MIT
# A database an older ingero made (here: this version's DDL without the
# 1.2 columns of processes and host_events - cgroup, cgroup_id, pod_uid,
# container_id - local and Distributed tables) with a row in it: appending a
# new log without --create is refused with a hint; with --create the missing
# columns are added (ALTER TABLE ... ADD COLUMN, after the column before
# them, on the local and the Distributed tables), the log's rows carry its
# containers and cgroup ids, the old row reads the defaults, and --create
# again changes nothing.
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
start_ch 1

ingero-export --format clickhouse-sql --database mig >new.sql
python3 - new.sql old.sql <<'PY'
import re, sys
src = open(sys.argv[1]).read()
drop = {"processes": ("cgroup", "cgroup_id", "pod_uid", "container_id"), "host_events": ("cgroup_id",)}
def strip(m):
    table, body = m.group(1), m.group(2)
    cols = [l for l in body.split("\n") if l.strip()]
    cols = [l.rstrip(",") for l in cols if l.split()[0] not in drop.get(table, ())]
    return "CREATE TABLE IF NOT EXISTS mig.%s\n(\n%s\n)" % (table, ",\n".join(cols))
out = re.sub(r"CREATE TABLE IF NOT EXISTS mig\.(\w+)\n\(\n(.*?)\n\)", strip, src, flags=re.S)
open(sys.argv[2], "w").write(out)
PY
clickhouse-client --port "$CH_TCP1" -n <old.sql || fail "the old DDL failed"
cols() { chq "$CH_URL" "DESCRIBE TABLE mig.$1" | cut -f1 | paste -sd,; }
old_proc=$(cols processes)
[[ $old_proc != *pod_uid* && $(cols processes_all) == "$old_proc" ]] || fail "the old tables: $old_proc"
chq "$CH_URL" "INSERT INTO mig.processes (session_id, node, pid, comm) VALUES (1, 'old-node', 7, 'old')"

cat "$INGERO_TESTS/vectors/kinds.ilog" >k.ilog
if export_ch --url "$CH_URL" --database mig k.ilog 2>err.txt; then
	fail "an insert into the old tables was taken"
fi
grep -q 'Code: 16,.*(--create adds the columns this version has to the tables an older one made)$' err.txt ||
	fail "message: $(cat err.txt)"

export_ch --url "$CH_URL" --database mig --create k.ilog "$INGERO_TESTS/vectors/host.ilog" 2>err.txt ||
	fail "--create on the old tables: $(cat err.txt)"
# every column of this version, in its place, local and Distributed
for t in processes host_events; do
	want=$(sed -n "/^CREATE TABLE IF NOT EXISTS mig.$t\$/,/^)/p" new.sql | awk 'NR > 2 && $1 != ")" { print $1 }' | paste -sd,)
	[[ $(cols $t) == "$want" ]] || fail "$t columns: $(cols $t), want $want"
	[[ $(cols ${t}_all) == "$want" ]] || fail "${t}_all columns: $(cols ${t}_all), want $want"
done
# the new rows hold what the logs say, the old one the defaults
got=$(chq "$CH_URL" "SELECT pid, comm, cgroup_id, pod_uid, container_id FROM mig.processes_all ORDER BY pid FORMAT TSV")
want=$(printf '7\told\t0\t\t\n'; ingero-export k.ilog "$INGERO_TESTS/vectors/host.ilog" |
	jq -r 'select(.type=="process") | [.pid, .comm, .cgroup_id, .pod_uid, .container_id] | @tsv' | sort -n)
[[ $got == "$want" ]] || fail "processes: $got, want $want"
got=$(chq "$CH_URL" "SELECT pid, cgroup_id FROM mig.host_events ORDER BY ts_ns, pid FORMAT TSV" | sort -n | paste -sd' ')
want=$(ingero-export k.ilog "$INGERO_TESTS/vectors/host.ilog" | jq -r 'select(.type=="host") | [.pid, .cgroup_id] | @tsv' |
	sort -n | paste -sd' ')
[[ $got == "$want" ]] || fail "host_events: $got, want $want"
echo "old tables gained: $(cols processes | sed "s/^$old_proc,//")"
before=$(cols processes)
export_ch --url "$CH_URL" --database mig --create k.ilog 2>err.txt || fail "--create again: $(cat err.txt)"
[[ $(cols processes) == "$before" ]] || fail "--create again changed the columns"
echo "--create again: the same columns"
