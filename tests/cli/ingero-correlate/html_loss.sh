# SPDX-License-Identifier: MIT
# --html: when the recorder lost events the page says how many, above the
# verdict, with the figures of the loss records (here 1234 lost of 105000
# seen by one probe); a log without loss has no such banner
set -uo pipefail
synth=$INGERO_OUT/tests/tools/synth
# a loss record [12, ts, "probe:x", 1234, 100000] appended as raw msgpack
"$synth" --events 5000 --raw "95 0c 00 a7 70726f62653a78 cd04d2 ce000186a0" -o lossy.ilog
"$synth" --events 5000 -o clean.ilog
ingero-correlate --html lossy.html lossy.ilog || exit 1
ingero-correlate --html clean.html clean.ilog || exit 1
lost=$(ingero-correlate --json lossy.ilog | jq -r 'select(.type == "summary") | .lost')
grep -o '<p class="loss" id="loss">[^<]*' lossy.html | sed 's/.*">//'
grep -n -e 'id="loss"' -e 'id="verdict"' lossy.html | cut -d: -f1 | tr '\n' ' ' | awk '{ print ($1 < $2 ? "banner above the verdict" : "banner below the verdict") }'
echo "summary lost: $lost"
echo "banners without loss: $(grep -c "id=\"loss\"" clean.html)"
