# get_stacks shows Python frames: a code object compiled by this machine's
# CPython (its real co_linetable) is attached, the way the export stores
# pycode and pyframes, to half of the cudaStreamSynchronize calls of a
# synthesized trace (and the call-site totals the export keeps are made
# again from the rows); the frame must resolve to the source line of the
# chosen instruction, and the other half must be counted as stackless.
set -euo pipefail
command -v python3 >/dev/null || { echo "python3 is needed to compile a code object" >&2; exit 77; }
"$INGERO_OUT/tests/tools/synth" --events 4000 --stacks 0 -o run.ilog
ingero-export --format sqlite -o run.db run.ilog
python3 - >code.tsv <<'PY'
import dis, sys
src = "\n" * 139 + "def forward(x):\n    y = x + 1\n    z = torch_sync(y)\n    return z\n"
code = [c for c in compile(src, "/srv/job/train.py", "exec").co_consts if hasattr(c, "co_code")][0]
# the CALL on line 142, as the interpreter's f_lasti would point at it
spans = [(s, e) for s, e, line in code.co_lines() if line == 142]
ins = [i for i in dis.get_instructions(code) if i.opname.startswith("CALL")
       and any(s <= i.offset < e for s, e in spans)][0]
print(sys.hexversion >> 16, code.co_firstlineno, code.co_linetable.hex(), ins.offset // 2,
      getattr(code, "co_qualname", code.co_name), sep="\t")
PY
IFS=$'\t' read -r ver first table lasti qual <code.tsv
sqlite3 run.db "
INSERT INTO pycode(session_id, node, pid, code, py_version, filename, qualname, firstlineno, linetable)
  SELECT session_id, 0, 4242, 1234, $ver, '/srv/job/train.py', '$qual', $first, x'$table' FROM sessions;
INSERT INTO pyframes(session_id, node, pystack_id, frame, code, lasti)
  SELECT session_id, 0, 77, 0, 1234, $lasti FROM sessions;
UPDATE events SET pystack_id = 77 WHERE op = 11 AND rowid % 2 = 0;
DELETE FROM summary_callsites;
INSERT INTO summary_callsites SELECT session_id, node, pid, op, stack_id, pystack_id, count(*),
  sum(dur_ns), max(dur_ns) FROM events GROUP BY session_id, node, pid, op, stack_id, pystack_id;"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_stacks","arguments":{"op":"cudaStreamSynchronize"}}}' |
	ingero-mcp --db run.db >out.json
jq -c '.result.content[0].text | fromjson | {python: [.stacks[].python], native: [.stacks[].native | length], with: [.stacks[].calls], without: .no_stack_calls}' out.json
sqlite3 run.db "SELECT sum(pystack_id = 77), sum(pystack_id = 0) FROM events WHERE op = 11"
