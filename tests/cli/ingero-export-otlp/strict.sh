# SPDX-License-Identifier: MIT
# The OTLP/HTTP JSON document parses strictly as an OTLP metrics export
# request (protobuf's JSON parser against our description of the fields we
# write, tests/cli/ingero-export-otlp/otlp_metrics.proto: an unknown field
# name or a wrong value type fails), and its numbers are the log's and the
# Prometheus export's.
set -euo pipefail
command -v protoc >/dev/null || { echo "protoc not found (Debian protobuf-compiler)" >&2; exit 77; }
py=/usr/bin/python3
$py -c 'import google.protobuf' 2>/dev/null || { echo "python3-protobuf not installed (Debian)" >&2; exit 77; }
here=$INGERO_TESTS/cli/ingero-export-otlp
protoc -I "$here" --python_out=. "$here/otlp_metrics.proto"
"$INGERO_OUT"/tests/tools/ranks -o rank --ranks 2 --steps 100
ingero-merge -q rank0.ilog rank1.ilog -o job.ilog
ingero-export -f otlp -o job.json job.ilog
ingero-export -f prometheus -o job.prom job.ilog
$py - job.json <<'PY'
import sys
from google.protobuf import json_format
import otlp_metrics_pb2 as m
req = json_format.Parse(open(sys.argv[1]).read(), m.ExportMetricsServiceRequest(),
                        ignore_unknown_fields=False)
for rm in req.resource_metrics:
    attrs = {kv.key: kv.value for kv in rm.resource.attributes}
    names = [x.name for x in rm.scope_metrics[0].metrics]
    print(attrs["ingero.node"].string_value, "rank", attrs["ingero.rank"].int_value,
          "scope", rm.scope_metrics[0].scope.name, len(names), "metrics")
    for x in rm.scope_metrics[0].metrics:
        if x.HasField("histogram"):
            for dp in x.histogram.data_points:
                op = {kv.key: kv.value.string_value for kv in dp.attributes}["cuda.op"]
                ok = (sum(dp.bucket_counts) == dp.count and len(dp.bucket_counts) == len(dp.explicit_bounds) + 1
                      and dp.start_time_unix_nano <= dp.time_unix_nano
                      and x.histogram.aggregation_temporality == m.AGGREGATION_TEMPORALITY_CUMULATIVE)
                print("  %s %s count %d %s" % (x.name, op, dp.count, "consistent" if ok else "INCONSISTENT"))
PY
# a field we do not write is refused: the check can fail
jq -c '.resourceMetrics[0].scopeMetrics[0].metrics[0].histogram.bogus = 1' job.json >bad.json
$py -c 'import sys, otlp_metrics_pb2 as m; from google.protobuf import json_format
try:
    json_format.Parse(open("bad.json").read(), m.ExportMetricsServiceRequest())
    print("bad.json accepted")
except json_format.ParseError as e:
    print("bad.json refused")'
# the counts agree with the Prometheus export
jq -r '.resourceMetrics[] | (.resource.attributes[] | select(.key == "ingero.node") | .value.stringValue) as $n |
	.scopeMetrics[0].metrics[] | select(.name == "ingero.cuda.calls") | .sum.dataPoints[] |
	"\($n) \(.attributes[] | select(.key == "cuda.op") | .value.stringValue) \(.asInt)"' job.json | sort >otlp.txt
grep '^ingero_cuda_calls_total' job.prom |
	sed 's/.*node="\([^"]*\)".*op="\([^"]*\)"} \(.*\)/\1 \2 \3/' | sort >prom.txt
cmp otlp.txt prom.txt && echo "ingero.cuda.calls = ingero_cuda_calls_total ($(wc -l <otlp.txt) series)"
