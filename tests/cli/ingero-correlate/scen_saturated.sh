# SPDX-License-Identifier: MIT
# A GPU-side verdict needs a host that was not saturated (ILOG_SAT_PSI,
# ILOG_SAT_CPU): the calling threads' own off-CPU time clears the host, but
# on saturated CPUs the work a call waits on outside them (a peer process,
# a helper thread) may have waited too.  scensynth --saturate sets the
# snapshots between FROM and TO (--mem-dip-at) to CPUs 100% busy and PSI
# cpu some PCT.
S=$INGERO_OUT/tests/tools/scensynth
chains() { ingero-correlate --json run.ilog | jq -c 'select(.type=="chain")'; }
fail() { echo "$*" >&2; exit 1; }
for seed in 1 2; do
	# saturated only where gpu-slow slows down: undetermined, LOW
	"$S" gpu-slow --seed $seed --saturate 50 -o run.ilog || exit 1
	chains >c.jsonl
	jq -se 'map(select(.pattern=="gpu-slow")) | length == 1 and (.[0] | .severity == "LOW" and
		.metrics.host_saturated == 1 and (.title | test("saturated host")) and
		(.root_cause | test("undetermined: the host.s CPUs were saturated \\(PSI cpu some [0-9.]+%, [0-9.]+% busy\\)")))' \
		c.jsonl >/dev/null || fail "seed $seed: saturated interval: $(cat c.jsonl)"
	# saturated all along: the interval's slowdown is not the host's
	"$S" gpu-slow --seed $seed --saturate 50 --mem-dip-at 0,1 -o run.ilog || exit 1
	chains >c.jsonl
	jq -se 'map(select(.pattern=="gpu-slow")) | length == 1 and (.[0] | .severity != "LOW" and
		.metrics.host_saturated == 0 and (.title | test("host not involved")))' \
		c.jsonl >/dev/null || fail "seed $seed: saturated all along: $(cat c.jsonl)"
	# a heavy tail of delays: the GPU side on a quiet host, undetermined
	# (LOW) on a saturated one
	"$S" clean --seed $seed --jitter 0.02 -o run.ilog || exit 1
	chains >c.jsonl
	jq -se 'map(select(.pattern=="isolated-stall")) | length == 1 and (.[0] | .severity != "LOW" and
		.metrics.side == "GPU" and .metrics.shape == "heavy-tail" and .metrics.host_saturated == 0)' \
		c.jsonl >/dev/null || fail "seed $seed: heavy tail, quiet host: $(cat c.jsonl)"
	"$S" clean --seed $seed --jitter 0.02 --saturate 50 --mem-dip-at 0,1 -o run.ilog || exit 1
	chains >c.jsonl
	jq -se 'map(select(.pattern=="isolated-stall")) | length == 1 and (.[0] | .severity == "LOW" and
		.metrics.side == "undetermined" and .metrics.host_saturated == 1)' \
		c.jsonl >/dev/null || fail "seed $seed: heavy tail, saturated host: $(cat c.jsonl)"
	# stalls of a mode of their own stay the GPU's on a saturated host
	"$S" isolated-stalls --seed $seed --saturate 50 --mem-dip-at 0,1 -o run.ilog || exit 1
	chains >c.jsonl
	jq -se 'map(select(.pattern=="isolated-stall")) | length == 1 and (.[0] | .severity != "LOW" and
		.metrics.side == "GPU" and .metrics.shape == "bimodal")' \
		c.jsonl >/dev/null || fail "seed $seed: bimodal, saturated host: $(cat c.jsonl)"
done
