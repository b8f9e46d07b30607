// SPDX-License-Identifier: MIT
// Parses a Perfetto JSON export (Chrome trace-event JSON) with Chrome
// DevTools' own trace engine (@paulirish/trace_engine, the Performance
// panel's TraceProcessor) and fails when the engine reports an error or a
// warning, or leaves a complete event out of its thread's tree: DevTools
// drops a slice that partially overlaps another on its thread (it starts
// inside one and ends after it), silently, so the check counts them.
//
//   node check.mjs TRACE.json [--expect-slices N]
//
// Prints: processes, threads, slices (as the engine sees them), dropped.
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';

const file = process.argv[2];
if (!file) {
	console.error('usage: node check.mjs TRACE.json [--expect-slices N]');
	process.exit(2);
}
const ei = process.argv.indexOf('--expect-slices');
const expect = ei > 0 ? Number(process.argv[ei + 1]) : null;

// the engine reports what it rejects on the console: collect it
const complaints = [];
for (const level of ['error', 'warn']) {
	const orig = console[level];
	console[level] = (...a) => {
		complaints.push(`${level}: ${a.map(String).join(' ')}`);
	};
	console[`_${level}`] = orig;
}

polyfillDOMRect();
const json = JSON.parse(fs.readFileSync(file, 'utf8'));
const events = Array.isArray(json) ? json : json.traceEvents;
const engine = Trace.Processor.TraceProcessor.createWithAllHandlers();
await engine.parse(events, { isFreshRecording: false, isCPUProfile: false });
const data = engine.parsedTrace ?? engine.data;
if (!data || !data.Renderer)
	complaints.push('error: no parsed trace');

const inputX = events.filter(e => e.ph === 'X' || e.ph === 'B').length;
let procs = 0, threads = 0, slices = 0, dropped = 0;
const r = data?.Renderer;
for (const [, proc] of r?.processes ?? []) {
	let used = 0;
	for (const [, th] of proc.threads) {
		const cx = th.entries.filter(e => e.ph === 'X');
		const inTree = cx.filter(e => r.entryToNode.has(e)).length;
		slices += inTree;
		dropped += cx.length - inTree;
		if (cx.length) {
			threads++;
			used = 1;
		}
	}
	procs += used;
}
// threads the engine dropped altogether (no roots) count as dropped too
if (slices + dropped < inputX)
	dropped += inputX - slices - dropped;
console.log(`devtools: ${procs} processes, ${threads} threads, ${slices} slices, ` +
	    `${dropped} dropped (overlapping), ${complaints.length} errors/warnings`);
for (const c of complaints.slice(0, 10))
	console.log('  ' + c);
let bad = dropped > 0 || complaints.length > 0;
if (expect !== null && slices !== expect) {
	console.log(`devtools: expected ${expect} slices`);
	bad = true;
}
process.exit(bad ? 1 : 0);
