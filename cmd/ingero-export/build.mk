# SPDX-License-Identifier: MIT
# ingero-export's sqlite sink (lib/export_sqlite.c) writes with libsqlite3.
LDLIBS_ingero-export := -lsqlite3
