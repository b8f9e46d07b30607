// SPDX-License-Identifier: MIT
// Round trips per second of one MCP request against ingero-mcp over
// stdio, sequentially (send, wait for the reply line, send the next), as
// an assistant makes them.  Raw JSON-RPC lines, so the figure is the
// server's, not an SDK's.
//   node rt.mjs SECONDS MAXCALLS REQUEST_JSON -- SERVER [ARGS...]
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const sep = process.argv.indexOf("--");
const [secs, maxCalls, reqText] = process.argv.slice(2, 5);
const [cmd, ...args] = process.argv.slice(sep + 1);
const srv = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
srv.on("exit", (code) => {
	if (code !== 0 && code !== null) {
		console.error(`bench: ${cmd} exited with ${code}`);
		process.exit(1);
	}
});
const lines = createInterface({ input: srv.stdout });
const waiting = [];
lines.on("line", (l) => waiting.shift()?.(l));
const send = (msg) => new Promise((res) => { waiting.push(res); srv.stdin.write(JSON.stringify(msg) + "\n"); });

await send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } } });
const req = JSON.parse(reqText);
const lat = [];
const t0 = process.hrtime.bigint();
let n = 0;
while (n < Number(maxCalls)) {
	const t = process.hrtime.bigint();
	const reply = JSON.parse(await send({ ...req, jsonrpc: "2.0", id: ++n }));
	lat.push(Number(process.hrtime.bigint() - t) / 1e6);
	if (reply.error || reply.result?.isError) {
		console.error("bench: error reply", JSON.stringify(reply).slice(0, 300));
		process.exit(1);
	}
	if (Number(process.hrtime.bigint() - t0) / 1e9 >= Number(secs)) break;
}
const total = Number(process.hrtime.bigint() - t0) / 1e9;
lat.sort((a, b) => a - b);
const q = (p) => lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)];
console.log(JSON.stringify({ calls: n, seconds: +total.toFixed(3), per_s: +(n / total).toFixed(1),
	p50_ms: +q(0.5).toFixed(3), p99_ms: +q(0.99).toFixed(3)}));
srv.stdin.end();
