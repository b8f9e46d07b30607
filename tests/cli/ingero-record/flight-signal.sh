# SPDX-License-Identifier: MIT
# --flight: nothing is written until a trigger; SIGUSR1 writes a dump of
# the window before it and the window after it, a complete log with a
# `trigger` record (SPEC §5.23), named after -o, its number and its UTC
# time; a second signal writes a second dump beside the first.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf

# an unwritable folder for the dumps: exit 2 before anything is attached
rc=0; ingero-record --flight 1s -o /nonexistent/x.ilog -d 1s 2>err || rc=$?
[[ $rc == 2 ]] || fail "unwritable folder: exit $rc"
grep -q "cannot write dumps in /nonexistent" err || fail "unwritable folder: $(cat err)"
grep -q "recording to" err && fail "unwritable folder: the recorder started"

"$W" --mix cudaLaunchKernel --seconds 30 --gap-ns 1000000 --ready-file ready --report w.json &
wpid=$!
trap 'kill $wpid 2>/dev/null || true' EXIT
wait_for ready
start_rec --pid "$wpid" --flight 1s
sleep 2
[[ -z $(ls rec.ilog rec.flight-* 2>/dev/null) ]] || fail "written before any trigger: $(ls)"
# dump N exists: its file, once whole (renamed into place)
wait_dump() {
	local i
	for ((i = 0; i < 200; i++)); do
		ls rec.flight-00"$1"-*Z.ilog >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	fail "no dump $1 after 10 s: $(ls) $(cat rec.err)"
}
kill -USR1 "$RECPID"
wait_dump 1
sleep 0.5
kill -USR1 "$RECPID"
wait_dump 2
stop_rec
kill "$wpid" 2>/dev/null || true
wait "$wpid" 2>/dev/null || true
[[ ! -e rec.ilog ]] || fail "rec.ilog written in flight mode"
grep -q "flight dump 1 written to rec.flight-001-" rec.err || fail "no line for dump 1: $(cat rec.err)"
for n in 1 2; do
	f=$(ls rec.flight-00$n-*Z.ilog)
	ingero-export "$f" >d$n.jsonl 2>d$n.err || fail "dump $n unreadable: $(cat d$n.err)"
	t=$(jq -s -c '[.[] | select(.type=="trigger")]' d$n.jsonl)
	assert_eq "dump $n: its trigger" "$(jq -c 'map([.reason, .seq, .pid, .before_ns, .after_ns])' <<<"$t")" \
		"[[\"signal\",$n,0,1000000000,1000000000]]"
	ts=$(jq '.[0].ts_ns' <<<"$t")
	assert_eq "dump $n: a header first" "$(head -1 d$n.jsonl | jq -r .type)" header
	assert_eq "dump $n: the workload's process record" \
		"$(jq -s "[.[] | select(.type==\"process\" and .pid==$wpid)] | length > 0" d$n.jsonl)" true
	# calls from (about) a window before the trigger to a window after it;
	# frames end every 0.25 s, so the edges are kept to that
	read -r lo hi cnt < <(jq -s -r "[.[] | select(.type==\"cuda\" and .pid==$wpid) | .ts_ns]
		| \"\\(min) \\(max) \\(length)\"" d$n.jsonl)
	((lo <= ts - 700000000)) || fail "dump $n: first call $(((ts - lo) / 1000000)) ms before the trigger"
	((lo >= ts - 1600000000)) || fail "dump $n: first call $(((ts - lo) / 1000000)) ms before the trigger (window 1 s)"
	((hi >= ts + 700000000)) || fail "dump $n: last call $(((hi - ts) / 1000000)) ms after the trigger"
	# (how many: as fast as a loaded machine lets the workload call)
	((cnt > 0)) || fail "dump $n: no calls"
done
[[ $(ls rec.flight-* | wc -l) == 2 ]] || fail "files: $(ls rec.flight-*)"
