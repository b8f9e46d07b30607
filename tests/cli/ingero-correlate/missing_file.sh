ingero-correlate --report nonexistent.ilog
