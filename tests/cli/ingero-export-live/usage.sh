# SPDX-License-Identifier: MIT
# The live options refuse what they cannot do, with one line each and exit 2.
set -uo pipefail
. "$INGERO_TESTS/cli/ingero-export-live/common.bash"
set +e
"$INGERO_OUT/tests/tools/synth" --events 100 -o run.ilog
try() { "$@" 2>err.txt; echo "exit $?: $(cat err.txt)"; }
try ingero-export --listen 127.0.0.1:9464 run.ilog
try ingero-export -f prometheus --listen nothost:1 run.ilog
try ingero-export -f prometheus --listen 127.0.0.1 run.ilog
try ingero-export -f prometheus --listen 127.0.0.1:9464 -o x.prom run.ilog
try ingero-export -f otlp --url http://127.0.0.1:1/v1/metrics -o x.json run.ilog
try ingero-export -f otlp --url http://127.0.0.1:1/v1/metrics --interval 0 run.ilog
port=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); print("up", flush=True); time.sleep(30)' "$port" >up.txt &
holder=$!
for ((i = 0; i < 100; i++)); do [[ -s up.txt ]] && break; sleep 0.1; done
try ingero-export -f prometheus --listen 127.0.0.1:$port run.ilog | sed "s/$port/PORT/"
kill $holder
