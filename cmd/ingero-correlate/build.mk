# SPDX-License-Identifier: MIT
# ingero-correlate filters records with ilog_filter_match (lib/export/export.c), which
# shares its object with the export sink table, so it links what the sinks
# need; `=` follows ingero-export's list as sinks are added.
LDLIBS_ingero-correlate = $(LDLIBS_ingero-export)
