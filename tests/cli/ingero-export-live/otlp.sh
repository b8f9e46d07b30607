# SPDX-License-Identifier: MIT
# ingero-export --format otlp --url: the live metrics pushed every
# --interval while a stream runs.  Every push parses strictly as an OTLP
# metrics export request (protobuf's JSON parser against
# tests/cli/ingero-export-otlp/otlp_metrics.proto), pushes come while the
# stream is open, and the last one holds the log's call count.  A receiver
# that is down (refusing) or hung (accepting, never answering) costs the
# stream nothing: its writer never waits longer than with a receiver that
# is up, every record is read, the failures are said once, and the
# exporter ends when the stream does.
. "$INGERO_TESTS/cli/ingero-export-live/common.bash"
command -v protoc >/dev/null || { echo "protoc not found (Debian protobuf-compiler)" >&2; exit 77; }
/usr/bin/python3 -c 'import google.protobuf' 2>/dev/null || { echo "python3-protobuf not installed" >&2; exit 77; }
here=$INGERO_TESTS/cli/ingero-export-live
protoc -I "$INGERO_TESTS/cli/ingero-export-otlp" --python_out=. \
	"$INGERO_TESTS/cli/ingero-export-otlp/otlp_metrics.proto"
"$INGERO_OUT/tests/tools/synth" --events 300000 --mix all -o run.ilog
calls=$(ingero-export -t cuda run.ilog | wc -l)
records=$(ingero-export run.ilog | wc -l)

port=$(free_port)
PYTHONPATH=. /usr/bin/python3 "$here/otlp_receiver.py" "$port" pushes.txt &
rpid=$!
trap 'kill $rpid ${hpid:-} 2>/dev/null || true' EXIT
wait_http "http://127.0.0.1:$port/" || exit 1

# 1. a receiver that is up: the stream fed over 3 s, a push every 250 ms
/usr/bin/python3 "$here/feeder.py" run.ilog 3 2>stall.up |
	ingero-export -f otlp --url "http://127.0.0.1:$port/v1/metrics" --interval 250ms -v 2>exp.err
n=$(wc -l <pushes.txt)
((n >= 8)) && echo "at least 8 pushes while the stream ran"
grep -v '^ok ' pushes.txt && echo "a push did not parse" || echo "every push parses strictly"
last=$(tail -n 1 pushes.txt)
[[ $last == "ok $calls $records" ]] && echo "the last push holds the log's calls and records"
[[ $(head -n 1 pushes.txt) != "$last" ]] && echo "the pushes grew with the stream"

# 2. a receiver that refuses connections, and one that accepts and never
#    answers: the writer never waits on them
dead=$(free_port)
hung=$(free_port)
/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); time.sleep(600)' "$hung" &
hpid=$!
for url in "http://127.0.0.1:$dead/v1/metrics" "http://127.0.0.1:$hung/v1/metrics"; do
	what=$([[ $url == *:$dead/* ]] && echo refusing || echo hung)
	start=$(date +%s%N)
	/usr/bin/python3 "$here/feeder.py" run.ilog 3 2>stall.down |
		ingero-export -f otlp --url "$url" --interval 1s -v 2>exp.err || echo "$what: exit $?"
	ms=$((($(date +%s%N) - start) / 1000000))
	# a push that waited for the receiver would stall the writer for the
	# push's timeout (the interval, 1 s); the reader never waits for one
	up=$(cat stall.up) down=$(cat stall.down)
	((down < 500)) && echo "$what: the writer never waited on the receiver" ||
		echo "$what: the writer waited $down ms (with the receiver up: $up ms)"
	grep -q "end of the stream: $records records" exp.err && echo "$what: every record read"
	(($(grep -c 'retrying; the stream goes on' exp.err) == 1)) && echo "$what: said once"
	# 3 s of stream, then the push under way and a final one, 1 s each
	((ms < 3000 + 2 * 1000 + 2000)) && echo "$what: ended with the stream" || echo "$what: took $ms ms"
done
