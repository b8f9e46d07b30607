# a file that is not a log: one error line, exit 2
echo "hello world, not zstd" > junk.ilog
ingero-correlate --report junk.ilog >/dev/null
