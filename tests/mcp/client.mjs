// SPDX-License-Identifier: MIT
// Drives ingero-mcp with the official MCP TypeScript SDK (Client +
// StdioClientTransport, or StreamableHTTPClientTransport for a server
// started with --http): a client nobody here wrote.  Usage:
//   node client.mjs EVENTS -- SERVER [ARGS...]
//   node client.mjs EVENTS -- http://127.0.0.1:PORT/mcp   (MCP_TOKEN: bearer token)
// EVENTS is the number of CUDA events the served trace holds.  Prints one
// "ok - ..." / "not ok - ..." line per check; exits 1 if any failed.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const sep = process.argv.indexOf("--");
const events = Number(process.argv[2]);
const [command, ...args] = process.argv.slice(sep + 1);
let failed = 0;
function check(cond, what, detail) {
	console.log(`${cond ? "ok" : "not ok"} - ${what}`);
	if (!cond) {
		failed++;
		if (detail !== undefined) console.error(`# ${what}: ${JSON.stringify(detail).slice(0, 2000)}`);
	}
}
const text = (r) => r.content?.[0]?.text ?? "";
const json = (r) => { try { return JSON.parse(text(r)); } catch { return null; } };

const transport = /^https?:/.test(command)
	? new StreamableHTTPClientTransport(new URL(command), process.env.MCP_TOKEN
		? { requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_TOKEN}` } } } : {})
	: new StdioClientTransport({ command, args, stderr: "inherit" });
const client = new Client({ name: "ingero-sdk-test", version: "1.0.0" });
await client.connect(transport);

const info = client.getServerVersion();
check(info?.name === "ingero-mcp", "initialize: serverInfo names ingero-mcp", info);
check(client.getServerCapabilities()?.tools && client.getServerCapabilities()?.prompts,
	"initialize: tools and prompts capabilities", client.getServerCapabilities());
check((client.getInstructions() ?? "").includes("get_trace_stats"), "initialize: instructions");
await client.ping();
check(true, "ping");

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
check(JSON.stringify(names) === JSON.stringify(["get_causal_chains", "get_check",
	"get_host_context", "get_kernel_stats", "get_process_breakdown", "get_ranks", "get_stacks",
	"get_trace_stats", "graph_frequency", "graph_lifecycle", "run_sql"]), "tools/list: the eleven tools",
	names);
check(tools.every((t) => t.inputSchema?.type === "object" && t.description &&
	t.annotations?.readOnlyHint === true), "tools/list: each has a JSON Schema and is read-only");

const call = (name, a = {}) => client.callTool({ name, arguments: a });

let r = await call("get_check");
let j = json(r);
check(!r.isError && j?.sessions?.rows?.[0]?.[4] === events, "get_check: the session's event count", j);

r = await call("get_trace_stats");
j = json(r);
const sum = (j?.rows ?? []).reduce((s, row) => s + row[2], 0) + 0;
check(!r.isError && j?.calls === events && j.cols[0] === "op", "get_trace_stats: every call counted", j);
check(j?.rows?.[0]?.[0] === "cudaStreamSynchronize", "get_trace_stats: heaviest op first", j?.rows?.[0]);
const sync = j?.rows?.find((row) => row[0] === "cudaStreamSynchronize");
check(sync && sync[3] <= sync[4] && sync[4] <= sync[5] && sync[5] <= sync[6], "get_trace_stats: p50 <= p95 <= p99 <= max", sync);
r = await call("get_trace_stats", { op: "cudaMalloc", pid: 4242, since: "+0s" });
j = json(r);
check(!r.isError && j.rows.length === 1 && j.rows[0][0] === "cudaMalloc", "get_trace_stats: op/pid/since filters", j);
r = await call("get_trace_stats", { verbose: true, limit: 3 });
check(!r.isError && json(r) === null && text(r).includes("calls, p50"), "get_trace_stats: verbose is prose", text(r));
r = await call("get_trace_stats", { pid: "x" });
check(r.isError && text(r).includes("'pid' must be an integer"), "get_trace_stats: schema-checked arguments", text(r));

// Cross-check with SQL through the same server.
r = await call("run_sql", { sql: "SELECT count(*) AS n FROM events" });
j = json(r);
check(!r.isError && j?.rows?.[0]?.[0] === events, "run_sql: count(*) matches", j);
r = await call("run_sql", { sql: "SELECT p99_ns FROM op_stats WHERE op_name = 'cudaStreamSynchronize'" });
j = json(r);
check(!r.isError && sync && Math.abs(j?.rows?.[0]?.[0] / 1000 - sync[5]) < 0.051,
	"get_trace_stats: p99 equals the export's op_stats view", { view: j?.rows, tool: sync });
r = await call("run_sql", { sql: "SELECT ts FROM events", limit: 5 });
j = json(r);
check(!r.isError && j.rows.length === 5 && j.truncated?.more === true, "run_sql: rows capped, truncation marked", j);

for (const [what, sql, expect] of [
	["DELETE", "DELETE FROM events", "DELETE is not allowed"],
	["ATTACH", "ATTACH DATABASE 'x.db' AS x", "ATTACH is not allowed"],
	["PRAGMA writable_schema", "PRAGMA writable_schema=1", "writable_schema=1 is not allowed"],
	["load_extension", "SELECT load_extension('x')", "load_extension() is not allowed"],
	["runaway recursive CTE", "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT max(x) FROM c", "timed out"],
]) {
	/* a refusal is a JSON-RPC error (-32001), which the SDK raises */
	let msg = null, code = null;
	try {
		r = await call("run_sql", { sql });
	} catch (err) {
		msg = String(err.message);
		code = err.code;
	}
	check(code === -32001 && msg.includes(expect), `run_sql: rejects ${what} with a JSON-RPC error`, msg);
}

r = await call("get_process_breakdown");
j = json(r);
const proc = j?.rows?.[0];
check(!r.isError && proc?.[0] === 4242 && proc?.[1] === "python3", "get_process_breakdown: the traced process", j);
check(proc?.[8] === 812 && proc?.[9] === "backup", "get_process_breakdown: names the preempting process", proc);

r = await call("get_stacks", { op: "cudaStreamSynchronize", limit: 3 });
j = json(r);
check(!r.isError && j.stacks.length === 3 && 
	j.stacks[0].total_ms >= j.stacks[1].total_ms && j.stacks[0].native[0].includes("libcudart.so.13+0x"),
	"get_stacks: heaviest first, frames resolved to module+offset", j);
r = await call("get_stacks", {});
check(r.isError && text(r).includes("missing required argument 'op'"), "get_stacks: op is required", text(r));

r = await call("graph_lifecycle", { limit: 10 });
j = json(r);
check(!r.isError && j.captures > 0 && j.launches > 0 && j.timeline.length === 10, "graph_lifecycle: captures, launches, timeline", j);
r = await call("graph_frequency");
j = json(r);
check(!r.isError && j.launches > 0 && j.rows.every((row) => ["hot", "cold", "unused"].includes(row[1])), "graph_frequency: classified execs", j);

r = await call("get_causal_chains", { limit: 3 });
j = json(r);
if (process.env.EXPECT_CULPRIT) {
	const culprit = process.env.EXPECT_CULPRIT;
	const cpu = j?.chains?.find((c) => c.pattern === "cpu-contention");
	check(!r.isError && cpu && cpu.title.includes(culprit) && cpu.root_cause.includes(culprit),
		`get_causal_chains: the cpu-contention chain names ${culprit}`, j ?? text(r));
} else {
	check(r.isError && text(r).includes("no causal chains"), "get_causal_chains: says why there are none", text(r));
}

const { prompts } = await client.listPrompts();
check(prompts.map((p) => p.name).join() === "investigate", "prompts/list: investigate", prompts);
const p = await client.getPrompt({ name: "investigate", arguments: { pid: "4242" } });
const ptext = p.messages?.[0]?.content?.text ?? "";
check(["get_trace_stats", "get_causal_chains", "get_stacks", "run_sql", "4242"].every((w) => ptext.includes(w)),
	"prompts/get: investigate walks stats, chains, stacks, SQL", ptext);

try {
	await call("no_such_tool");
	check(false, "tools/call: unknown tool is a JSON-RPC error");
} catch (e) {
	check(e.code === -32602, "tools/call: unknown tool is a JSON-RPC error", e.message);
}

await client.close();
console.log(failed ? `# ${failed} failed` : "# all passed");
process.exit(failed ? 1 : 0);
