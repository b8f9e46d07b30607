# SPDX-License-Identifier: MIT
# The protobuf is well formed for protoc, which unlike trace processor is
# strict: --decode_raw parses it, and decoding it as perfetto.protos.Trace
# with our description of the subset we write (docs/perfetto_subset.proto)
# leaves no unknown field.  Every slice BEGIN has an END, and every END
# names its slice.  The default, deflated, output inflates to the same
# packets, with zlib's own inflate.
set -euo pipefail
command -v protoc >/dev/null || { echo "protoc not found (Debian protobuf-compiler)" >&2; exit 77; }
docs=$INGERO_TESTS/../docs
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 50 --chains
ingero-merge -q rank0.ilog rank1.ilog -o job.ilog
ingero-export -f perfetto-proto --no-compress -o job.pftrace job.ilog
# the default output is those packets deflated in groups (TracePacket field
# 50, compressed_packets): inflated, they are the same bytes
ingero-export -f perfetto-proto -o packed.pftrace job.ilog
python3 - packed.pftrace job.pftrace <<'PY' || exit 1
import sys, zlib
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        assert tag & 7 == 2, "not a length-delimited field"
        n, i = varint(b, i)
        yield tag >> 3, b[i:i + n]; i += n
packed, plain = (open(f, "rb").read() for f in sys.argv[1:3])
out, groups = b"", 0
for f, pkt in fields(packed):
    assert f == 1, "not a Trace.packet"
    (g, data), = fields(pkt)
    assert g == 50, "not compressed_packets"
    out += zlib.decompress(data); groups += 1
assert out == plain, "inflated packets differ from the plain export"
print("deflated groups inflate to the plain packets:", groups > 0, len(plain) > 4 * len(packed))
PY
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
