# SPDX-License-Identifier: MIT
# ingero-mcp parses and writes JSON with jansson and queries SQLite; given
# a log, it loads it through the export sink table (lib/export), which
# brings the other sinks' libraries (libdeflate, libcurl) along; --http
# serves with libmicrohttpd.
LAYERS_ingero-mcp := export analyze cli codec base
LDLIBS_ingero-mcp := -ljansson -lsqlite3 -lcurl -ldeflate -lmicrohttpd
