"$INGERO_OUT/tests/tools/scensynth" clean -o new.ilog || exit 1
ingero-correlate --baseline missing.ilog new.ilog
