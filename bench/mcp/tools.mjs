// SPDX-License-Identifier: MIT
// Latency of each MCP tool call against ingero-mcp over stdio, cold and
// warm.  For each request (one JSON object a line on stdin: {label, name,
// arguments}): the database file is dropped from the page cache (dd
// iflag=nocache), a fresh server is started (--no-cache: no result cache),
// the call is made once (cold: nothing of the file in memory, SQLite's cache
// empty), then WARM more times (warm: the median).  One JSON line per
// request on stdout.
//   node tools.mjs DB WARM -- SERVER [ARGS...] < requests.jsonl
import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";

const sep = process.argv.indexOf("--");
const [db, warmN] = process.argv.slice(2, 4);
const [cmd, ...args] = process.argv.slice(sep + 1);
const reqs = readFileSync(0, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

async function measure(r) {
	spawnSync("dd", [`if=${db}`, "iflag=nocache", "count=0", "status=none"]);
	const srv = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
	const lines = createInterface({ input: srv.stdout });
	const waiting = [];
	lines.on("line", (l) => waiting.shift()?.(l));
	let id = 0;
	const send = (msg) => new Promise((res) => { waiting.push(res); srv.stdin.write(JSON.stringify({ ...msg, jsonrpc: "2.0", id: ++id }) + "\n"); });
	await send({ method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
	const call = async () => {
		const t = process.hrtime.bigint();
		const reply = JSON.parse(await send({ method: "tools/call", params: { name: r.name, arguments: r.arguments } }));
		const ms = Number(process.hrtime.bigint() - t) / 1e6;
		if (reply.error || reply.result?.isError)
			throw new Error(`${r.label}: ${JSON.stringify(reply).slice(0, 300)}`);
		return { ms, bytes: reply.result.content[0].text.length };
	};
	const cold = await call();
	const warm = [];
	for (let i = 0; i < Number(warmN); i++) warm.push((await call()).ms);
	warm.sort((a, b) => a - b);
	srv.stdin.end();
	await new Promise((res) => srv.on("exit", res));
	return { label: r.label, cold_ms: +cold.ms.toFixed(2), warm_ms: +(warm[warm.length >> 1] ?? cold.ms).toFixed(2), bytes: cold.bytes };
}

for (const r of reqs) console.log(JSON.stringify(await measure(r)));
