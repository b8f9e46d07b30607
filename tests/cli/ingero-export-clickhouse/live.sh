# SPDX-License-Identifier: MIT
# Streaming: a log on a pipe that stays open (as `ingero-record -o - |
# ingero-export --format clickhouse` does between frames) is in ClickHouse
# within the 5 s flush interval, before its input ends; the rest of the
# stream follows, and the session completes when the input ends.
. "$INGERO_TESTS/cli/ingero-export-clickhouse/common.bash"
start_ch 1

"$SYNTH" --events 5000 --seed 1 --node live-node -o a.ilog
"$SYNTH" --events 7000 --seed 2 --node live-node -o b.ilog
export_ch --url "$CH_URL" --create a.ilog || fail "--create"   # the schema, and a first session
mkfifo in
export_ch --url "$CH_URL" <in 2>err.txt &
epid=$!
exec 3>in
cat a.ilog >&3
start=$(date +%s%N)
live() { chq "$CH_URL" "SELECT count() FROM ingero.events WHERE session_id IN
	(SELECT session_id FROM ingero.sessions WHERE source = '-')"; }
n=0
for ((i = 0; i < 200; i++)); do
	n=$(live)
	((n == 5000)) && break
	sleep 0.05
done
ms=$((($(date +%s%N) - start) / 1000000))
((n == 5000)) || fail "after $ms ms of an open input, $n of 5000 events are in"
((ms <= 8000)) || fail "the first events took $ms ms"
echo "the first log's 5000 events arrived while the input was open"
complete=$(chq "$CH_URL" "SELECT count() FROM ingero.sessions WHERE source = '-' AND complete = 1")
[[ $complete == 0 ]] || fail "the session completed before its input ended"
cat b.ilog >&3
exec 3>&-
wait $epid || fail "export: $(cat err.txt)"
echo "after the input ended: $(live) events, complete sessions: $(chq "$CH_URL" \
	"SELECT count() FROM ingero.sessions FINAL WHERE source = '-' AND complete = 1")"
