ingero-correlate --frobnicate
