# SPDX-License-Identifier: MIT
# A strict OTLP/HTTP JSON receiver for the live export's tests: every POST
# to /v1/metrics is parsed with protobuf's JSON parser against
# tests/cli/ingero-export-otlp/otlp_metrics.proto (an unknown field or a
# wrong type fails it), and one line per push goes to the log file:
#   ok CALLS RECORDS   (the sums of ingero.cuda.calls and ingero.export.records)
#   bad WHY
# Usage: python3 otlp_receiver.py PORT LOGFILE  (otlp_metrics_pb2 on sys.path)
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
from google.protobuf import json_format
import otlp_metrics_pb2 as m

port, logfile = int(sys.argv[1]), sys.argv[2]


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):  # readiness
        self.send_response(200)
        self.end_headers()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            if self.path != "/v1/metrics" or self.headers.get("Content-Type") != "application/json":
                raise ValueError("path %s, type %s" % (self.path, self.headers.get("Content-Type")))
            req = json_format.Parse(body.decode(), m.ExportMetricsServiceRequest(),
                                    ignore_unknown_fields=False)
            calls = records = 0
            for rm in req.resource_metrics:
                for x in rm.scope_metrics[0].metrics:
                    if x.name == "ingero.cuda.calls":
                        calls += sum(dp.as_int for dp in x.sum.data_points)
                    if x.name == "ingero.export.records":
                        records += sum(dp.as_int for dp in x.sum.data_points)
            line = "ok %d %d" % (calls, records)
        except Exception as e:  # noqa: BLE001 -- any failure is the test's finding
            line = "bad %s" % str(e).replace("\n", " ")[:300]
        with open(logfile, "a") as f:
            f.write(line + "\n")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")


HTTPServer(("127.0.0.1", port), H).serve_forever()
