ingero demo no-such-scenario
