# SPDX-License-Identifier: MIT
# --type and --pid select exactly what the same selection in jq selects.
set -euo pipefail
synth=$INGERO_OUT/tests/tools/synth
"$synth" --events 1000 --pid 100 --seed 3 -o a.ilog
"$synth" --events 700 --pid 200 --seed 4 --unknown-kind -o b.ilog
cat a.ilog b.ilog >ab.ilog
ingero-export ab.ilog >all.jsonl

ingero-export --type cuda,host ab.ilog >t.jsonl
jq -c 'select(.type == "cuda" or .type == "host")' all.jsonl | cmp - t.jsonl
echo "--type cuda,host: $(wc -l <t.jsonl) records"
ingero-export -t stack,loss ab.ilog | jq -r .type | sort | uniq -c
ingero-export --format=jsonl --type=header ab.ilog | jq -r .node

# --pid keeps that process's records (host events also where it is the
# other side) and records that belong to no process (context)
for pid in 100 200 812; do
	ingero-export --pid $pid ab.ilog >p.jsonl
	jq -c --argjson p $pid 'select(.pid == null or .pid == $p or (.type == "host" and .other_pid == $p))' \
		all.jsonl | cmp - p.jsonl
	echo "--pid $pid: $(jq -r .type p.jsonl | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
done
ingero-export -p 200 -t cuda ab.ilog >pc.jsonl
jq -c 'select(.type == "cuda" and .pid == 200)' all.jsonl | cmp - pc.jsonl
echo "--pid 200 --type cuda: $(wc -l <pc.jsonl) records"
