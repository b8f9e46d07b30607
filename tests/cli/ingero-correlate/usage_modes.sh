ingero-correlate --report --json x.ilog
