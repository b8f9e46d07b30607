# SPDX-License-Identifier: MIT
# ingero-mcp parses and writes JSON with jansson and queries SQLite.
LDLIBS_ingero-mcp := -ljansson -lsqlite3
