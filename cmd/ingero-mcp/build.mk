# SPDX-License-Identifier: MIT
# ingero-mcp parses and writes JSON with jansson and queries SQLite.
LDLIBS_ingero-mcp := -ljansson -lsqlite3

# Fuzz targets are linked from every lib/*.c (the Makefile's fuzz rule),
# lib/mcp*.c among them, so each needs these libraries too.
.output/fuzz/%: LDLIBS_BASE += -ljansson -lsqlite3
# cmd/ingero-mcp/load.c uses the export sink table, which links the ClickHouse sink (libcurl).
LDLIBS_ingero-mcp += -lcurl -ldeflate
