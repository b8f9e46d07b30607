# SPDX-License-Identifier: MIT
# ingero-correlate: the analysis over the codec; no export sink, so neither
# SQLite nor curl.
LAYERS_ingero-correlate := analyze cli codec base
