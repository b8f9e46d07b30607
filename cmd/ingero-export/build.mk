# SPDX-License-Identifier: MIT
# ingero-export's sqlite sink (lib/export/sqlite/sqlite.c) writes with libsqlite3.
LDLIBS_ingero-export := -lsqlite3 -ldeflate

# lib/export_clickhouse*.c: libcurl for the ClickHouse HTTP interface (pthreads are in libc);
# the fuzz targets link every lib/*.c.
LDLIBS_ingero-export += -lcurl
.output/fuzz/%: LDLIBS_BASE += -lcurl -ldeflate
