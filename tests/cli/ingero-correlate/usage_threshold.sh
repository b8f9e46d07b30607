ingero-correlate --threshold abc x.ilog
