# SPDX-License-Identifier: MIT
# tests/data/training.ilog, a committed log, renders as it always has.
# Fields are limited to those the log's own schema records name, so a field
# appended to a kind later (SPEC §8.1) does not change this output, while a
# renamed, reordered or re-rendered one does.
set -euo pipefail
ingero-export "$INGERO_TESTS/data/training.ilog" >all.jsonl
jq -c --slurp '
	(map(select(.type == "schema")) | map({key: .name, value: .fields}) | from_entries) as $s
	| .[] | . as $r
	| if $s[$r.type] then
		with_entries(select(.key as $k | ["type", "time", "kind", "node_index"] | index([$k]) != null
			or ($s[$r.type] | index([$k]) != null)))
	  else . end' all.jsonl >proj.jsonl
head -n 150 proj.jsonl
echo ...
tail -n 20 proj.jsonl
jq -r .type all.jsonl | sort | uniq -c
