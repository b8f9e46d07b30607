# SPDX-License-Identifier: MIT
# ingero-export: every sink (lib/export/; the folded stacks use the call
# sites of lib/analyze).  The sqlite sink (lib/export/sqlite/) writes with
# libsqlite3, the Perfetto protobuf sink deflates with libdeflate, the
# ClickHouse sink (lib/export/clickhouse/) talks HTTP with libcurl, as
# do the OTLP pushes of --url; --listen serves with libmicrohttpd.
LAYERS_ingero-export := export analyze cli codec base
LDLIBS_ingero-export := -lsqlite3 -ldeflate -lcurl -lmicrohttpd
