// SPDX-License-Identifier: MIT
// The CPU-contention scenario through the official MCP SDK client: the
// assistant's path from stats to chains must end at the culprit.
//   node scenario.mjs CULPRIT -- SERVER [ARGS...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const sep = process.argv.indexOf("--");
const culprit = process.argv[2];
const [command, ...args] = process.argv.slice(sep + 1);
let failed = 0;
function check(cond, what, detail) {
	console.log(`${cond ? "ok" : "not ok"} - ${what}`);
	if (!cond) {
		failed++;
		console.error(`# ${what}: ${JSON.stringify(detail).slice(0, 2000)}`);
	}
}
const client = new Client({ name: "ingero-scenario-test", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const call = async (name, a = {}) => {
	const r = await client.callTool({ name, arguments: a });
	try { return JSON.parse(r.content[0].text); } catch { return { error: r.content?.[0]?.text }; }
};

const stats = await call("get_trace_stats");
const sync = stats.rows?.find((row) => row[0] === "cudaStreamSynchronize");
check(sync && sync[5] > 3 * sync[3], "get_trace_stats: cudaStreamSynchronize p99 far above p50", stats);

const chains = await call("get_causal_chains");
const top = chains.chains?.[0];
check(top?.severity === "HIGH" && top?.pattern === "cpu-contention", "get_causal_chains: top chain is HIGH cpu-contention", chains);
check(top?.title?.includes(culprit) && top?.root_cause?.includes(culprit) && top?.fix?.includes(culprit),
	`get_causal_chains: the top chain names ${culprit} as the culprit`, top);
check(top?.op === "cudaStreamSynchronize", "get_causal_chains: on the stalled op", top);

const procs = await call("get_process_breakdown");
const victim = procs.rows?.find((row) => row[0] === top?.pid);
check(victim && victim[9] === culprit, `get_process_breakdown: ${culprit} preempted the job most`, procs);

await client.close();
process.exit(failed ? 1 : 0);
