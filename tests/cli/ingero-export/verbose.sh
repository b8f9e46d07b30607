# SPDX-License-Identifier: MIT
# -v: after the run, one line saying how many records were read and how
# many passed the filters; the output is the same as without it.
set -euo pipefail
"$INGERO_OUT/tests/tools/synth" --events 50 -o ok.ilog
ingero-export -t cuda ok.ilog >plain.jsonl
ingero-export -v -t cuda ok.ilog >v.jsonl 2>err.txt
cmp plain.jsonl v.jsonl
cat err.txt
ingero-export --verbose -q ok.ilog 2>&1 >/dev/null | wc -l
