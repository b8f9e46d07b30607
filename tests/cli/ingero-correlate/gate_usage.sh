ingero-correlate --baseline old.ilog a.ilog b.ilog
