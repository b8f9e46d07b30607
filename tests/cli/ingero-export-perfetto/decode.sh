# SPDX-License-Identifier: MIT
# The protobuf is well formed for protoc, which unlike trace processor is
# strict: --decode_raw parses it, and decoding it as perfetto.protos.Trace
# with our description of the subset we write (docs/perfetto_subset.proto)
# leaves no unknown field.  Every slice BEGIN has an END, and every END
# names its slice.
set -euo pipefail
command -v protoc >/dev/null || { echo "protoc not found (Debian protobuf-compiler)" >&2; exit 77; }
docs=$INGERO_TESTS/../docs
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 50 --chains
ingero-merge -q rank0.ilog rank1.ilog -o job.ilog
ingero-export -f perfetto-proto -o job.pftrace job.ilog
protoc --decode_raw <job.pftrace >raw.txt && echo "decode_raw: $(grep -c '^1 {' raw.txt) packets"
protoc -I "$docs" --decode=perfetto.protos.Trace "$docs/perfetto_subset.proto" <job.pftrace >dec.txt
echo "decode: $(grep -c '^packet {' dec.txt) packets"
# protoc prints fields it does not know by number
echo "unknown fields: $(grep -cE '^ *[0-9]+(:| \{)' dec.txt || true)"
awk '/^  track_event \{/ { in_te = 1; type = ""; named = 0; next }
     in_te && /^  \}/ { if (type == "TYPE_SLICE_BEGIN") b++
                        if (type == "TYPE_SLICE_END") { e++; if (named) en++ }
                        in_te = 0; next }
     in_te && /^    type: / { type = $2 }
     in_te && /^    name_iid: / { named = 1 }
     END { printf "begin %d, end %d, end with a name %d\n", b, e, en }' dec.txt
echo "log: $(ingero-export -t cuda job.ilog | wc -l) calls, $(ingero-export -t host job.ilog | wc -l) preemptions"
for want in clock_snapshot track_descriptor interned_data event_names debug_annotation_string_values thread_name process_name; do
	grep -q "$want" dec.txt && echo "has $want"
done
