# Two clean workloads recorded for real by bench/cleanload (tests/data/
# README.md) that once raised MEDIUM chains, kept as regressions:
# - clean-jitter.ilog: a 3-thread synchronize loop with 38% jitter had 11
#   calls above the outlier threshold where its spread predicts about 9,
#   and they fell into a rhythm by chance ("stalls every 53.5 ms"):
#   periodic spikes must be more than the spread predicts.
# - clean-ownthreads.ilog: a 4-thread loop whose stalls (52 ms lost) came while its
#   threads waited 76 ms for a CPU, most of it behind its own threads, was
#   called the GPU's ("the host was not in the way"): the host side, and
#   no chain above LOW that the records do not prove CPU contention.
. "$INGERO_TESTS/scenarios/check.sh"
d=$INGERO_TESTS/data
no_pattern "$d/clean-jitter.ilog" periodic-spike || exit 1
no_chain_above "$d/clean-jitter.ilog" LOW || exit 1
no_chain_above "$d/clean-ownthreads.ilog" LOW || exit 1
# the stalls are there; their side is the host's, with the waits named
jq -se 'map(select(.type == "chain" and .pattern == "isolated-stall")) |
	length > 0 and all(.[]; .metrics.side == "host" and .metrics.cause == "cpu-contention" and
		.metrics.offcpu_self_in_ns > 0 and
		(.root_cause | test("of it behind its own threads or the recorder")))' corr.jsonl >/dev/null ||
	{ jq -r 'select(.type=="chain") | "  \(.severity) \(.pattern): \(.root_cause)"' corr.jsonl >&2; exit 1; }
