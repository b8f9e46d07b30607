#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
#   samecorr.sh corpus TOOLS DIR    write the logs to compare into DIR
#   samecorr.sh run BIN DIR OUT     run BIN/ingero-correlate over DIR's logs
#   samecorr.sh cmp OUT_A OUT_B     compare two runs' outputs byte for byte
#
# For changes that must not change what ingero-correlate says (a refactor
# of lib/analyze): make a corpus with the test tools of a build (TOOLS, its
# .output/tests/tools), run the binaries of the build before (BIN, a copy
# of its bin/) and after over it, and compare.  The corpus is every log
# under tests/ (data, vectors, ...), the synthetic scenarios of scensynth
# over several seeds, lengths and host noises, simulated multi-rank jobs
# (straggler, hang, desync, clean; per rank and merged) and merged logs.
# Each log gives three outputs: --report, --json and --json --per-process
# --windows; --help is compared once.  Not a test: it needs a build from
# before the change.
set -uo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)

corpus() {
	local tools=$1 dir=$2 s seed i=0
	mkdir -p "$dir"
	find "$here/tests" -name '*.ilog' | sort | while read -r f; do
		i=$((i + 1))
		cp "$f" "$dir/t$(printf %03d "$i")-$(basename "$f")"
	done
	for s in $("$tools/scensynth" --list | awk '{print $1}'); do
		for seed in 1 2 3 4 5 6; do
			"$tools/scensynth" "$s" --seed "$seed" -o "$dir/s-$s-$seed.ilog" 2>/dev/null ||
				rm -f "$dir/s-$s-$seed.ilog"
		done
		"$tools/scensynth" "$s" --seed 7 --seconds 3 -o "$dir/s-$s-short.ilog" 2>/dev/null ||
			rm -f "$dir/s-$s-short.ilog"
		"$tools/scensynth" "$s" --seed 8 --jitter 0.02 -o "$dir/s-$s-jitter.ilog" 2>/dev/null ||
			rm -f "$dir/s-$s-jitter.ilog"
		"$tools/scensynth" "$s" --seed 9 --mem-dip 0.3 -o "$dir/s-$s-memdip.ilog" 2>/dev/null ||
			rm -f "$dir/s-$s-memdip.ilog"
		"$tools/scensynth" "$s" --seed 10 --sync-factor 2 -o "$dir/s-$s-sync2.ilog" 2>/dev/null ||
			rm -f "$dir/s-$s-sync2.ilog"
	done
	for seed in 1 2 3; do
		"$tools/job" -o "$dir/j$seed-straggler.ilog" --ranks 4 --seed "$seed" --straggler 2:3ms
		"$tools/job" -o "$dir/j$seed-hang.ilog" --ranks 4 --seed "$seed" --hang 1:40:2s
		"$tools/job" -o "$dir/j$seed-desync.ilog" --ranks 4 --seed "$seed" --desync 3:30
		"$tools/job" -o "$dir/j$seed-clean.ilog" --ranks $((seed * 4)) --seed "$seed"
		"$tools/job" -o "$dir/jr$seed-" --ranks 4 --seed "$seed" --straggler 1:2ms --per-rank
		"$here/bin/ingero-merge" -o "$dir/jm$seed-straggler.ilog" "$dir/jr$seed-"*.ilog
		"$tools/ranks" -o "$dir/r$seed-" --ranks 3 --seed "$seed" --chains >/dev/null 2>&1
		for seed2 in 1 2; do
			"$tools/synth" -o "$dir/y$seed-$seed2.ilog" --seed "$seed$seed2" --events 20000 \
				--mix all >/dev/null 2>&1
		done
	done
}

run() {
	local bin=$1 dir=$2 out=$3 f b
	mkdir -p "$out"
	"$bin/ingero-correlate" --help >"$out/help" 2>&1
	for f in "$dir"/*.ilog; do
		b=$(basename "$f" .ilog)
		"$bin/ingero-correlate" --report "$f" >"$out/$b.report" 2>&1
		echo "exit $?" >>"$out/$b.report"
		"$bin/ingero-correlate" --json "$f" >"$out/$b.json" 2>&1
		echo "exit $?" >>"$out/$b.json"
		"$bin/ingero-correlate" --json -P -w "$f" >"$out/$b.pw.json" 2>&1
		echo "exit $?" >>"$out/$b.pw.json"
	done
}

cmp_runs() {
	local a=$1 b=$2 n=0 bad=0 f
	for f in "$a"/*; do
		n=$((n + 1))
		cmp -s "$f" "$b/$(basename "$f")" || { echo "differs: $(basename "$f")"; bad=$((bad + 1)); }
	done
	echo "$n outputs compared, $bad differ ($(grep -l '"type":"chain"' "$a"/*.json | wc -l) with chains)"
	[ "$bad" = 0 ]
}

case ${1-} in
corpus) corpus "$2" "$3" ;;
run) run "$2" "$3" "$4" ;;
cmp) cmp_runs "$2" "$3" ;;
*) sed -n 3,17p "$0" >&2; exit 2 ;;
esac
