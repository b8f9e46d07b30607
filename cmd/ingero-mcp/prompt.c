// SPDX-License-Identifier: MIT
/*
 * The `investigate` prompt: a plan that walks an assistant from the
 * numbers (get_trace_stats) to the explanation (get_causal_chains), to
 * the code (get_stacks) and to its own checks (run_sql), and asks for an
 * answer with evidence.  The tables present in this database are named
 * in it so the first SQL the model writes has a chance of running.
 */
#include <stdio.h>
#include <string.h>
#include "mcp_int.h"

static const struct mcp_prompt_arg investigate_args[] = {
	{ "symptom", "what went wrong, in the user's words (e.g. \"step time doubled\")", 0 },
	{ "pid", "process id to focus on (default: the whole trace)", 0 },
	{ "op", "CUDA call to focus on, e.g. cudaStreamSynchronize", 0 },
	{ 0 },
};

static json_t *render_investigate(struct ilog_mcp *m, json_t *args)
{
	const char *symptom = json_string_value(json_object_get(args, "symptom"));
	const char *pid = json_string_value(json_object_get(args, "pid"));
	const char *op = json_string_value(json_object_get(args, "op"));
	struct ilog_buf b = { 0 };
	char tables[1024] = "";
	sqlite3_stmt *st;
	char err[256];
	if (!mcp_prepare(m, "SELECT group_concat(name, ', ') FROM sqlite_schema "
			    "WHERE type='table' AND name NOT LIKE 'sqlite_%'", 0, &st, err,
			 sizeof(err))) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
			snprintf(tables, sizeof(tables), "%s", sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	int rc = mcp_buf_printf(&b,
		"Investigate this GPU trace with the ingero tools and explain what slowed the job.\n");
	if (symptom)
		rc = rc || mcp_buf_printf(&b, "Reported symptom: %s\n", symptom);
	if (pid)
		rc = rc || mcp_buf_printf(&b, "Focus on process %s (pass pid=%s to the tools).\n",
					  pid, pid);
	if (op)
		rc = rc || mcp_buf_printf(&b, "Focus on the CUDA call %s.\n", op);
	rc = rc || mcp_buf_printf(&b,
		"\nSteps:\n"
		"1. get_check: what was recorded, on which host; note any event loss, missing "
		"symbols or missing chains, because they limit what you can conclude.\n"
		"2. get_trace_stats%s: find the ops that dominate total time or whose p99 is far "
		"above p50 (a long tail means something intermittent).\n"
		"3. get_causal_chains: the ranked explanations (root cause, evidence, fix). "
		"Take the highest severity first; check that its time window and op match "
		"what step 2 showed.\n"
		"4. get_stacks with the op from step 3: which code path (Python file:line "
		"and native frames) makes the slow calls.\n"
		"5. If CUDA Graphs appear (cudaGraphLaunch, cudaStreamBeginCapture): "
		"graph_lifecycle and graph_frequency, looking for re-capture or cold graphs.\n"
		"6. get_process_breakdown: whether another process shares the GPU or the CPUs.\n"
		"7. run_sql to test your explanation against the raw events%s%s%s. Prefer "
		"aggregates (count, sum, percentiles by time bucket) over raw rows.\n"
		"\nAnswer with: the root cause in one sentence; the evidence as numbers "
		"(latencies, counts, the culprit process and its pid, the time window); the "
		"code location; a concrete fix; and what you could not verify. "
		"Do not blame the host when the chains and stats show it was idle.\n",
		pid ? " (with pid)" : "",
		tables[0] ? " (tables: " : "", tables, tables[0] ? ")" : "");
	if (rc) {
		ilog_buf_free(&b);
		return NULL;
	}
	/* Arguments are the client's strings, checked UTF-8 by jansson. */
	json_t *msgs = json_pack("[{s:s, s:{s:s, s:s%}}]", "role", "user", "content", "type", "text",
				 "text", b.p, b.len);
	ilog_buf_free(&b);
	return msgs;
}

const struct mcp_prompt mcp_prompts[] = {
	{
		.name = "investigate",
		.title = "Investigate a GPU stall",
		.description = "Walk from trace statistics to causal chains, stacks and SQL, and "
			       "explain what slowed the GPU job",
		.args = investigate_args,
		.render = render_investigate,
	},
};
const size_t mcp_nprompts = sizeof(mcp_prompts) / sizeof(mcp_prompts[0]);
