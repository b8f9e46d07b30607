#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Runs libFuzzer targets (built by `make fuzz` from tests/fuzz/*.c into
# .output/fuzz/) for SECONDS each, FUZZ_JOBS of them at once (default: the
# number of CPUs), each on one core:
#
#   tests/fuzz/run.sh SECONDS FUZZER...
#
# Seeds: tests/vectors/<name>/ for any target that has such a directory;
# for the log readers (reader, records) also tests/vectors/*.ilog,
# tests/data/*.ilog and small synth logs (records gets them decompressed:
# the msgpack content of their frames); for parse, typical option values.
# The corpus grows in .output/fuzz/corpus/<name> across runs; a crash,
# leak, timeout or OOM leaves its input in .output/fuzz/artifacts/<name>/
# and fails the run (exit 1).  Reproduce one with: .output/fuzz/NAME FILE
# FUZZ_SEED=N: libFuzzer's -seed (a fresh corpus and the same seed give the
# same inputs in the same order; a longer run goes on past a shorter one's).
set -euo pipefail
(($# >= 2)) || { echo "usage: $0 SECONDS FUZZER..." >&2; exit 2; }
secs=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$(dirname "$here")")
out=$root/.output/fuzz
synth=${INGERO_OUT:-$root/.output}/tests/tools/synth
work=$(mktemp -d "${TMPDIR:-/tmp}/ingero-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Small, varied logs for the reader targets.
logs=$work/logs
mkdir -p "$logs"
for f in "$root"/tests/vectors/*.ilog "$root"/tests/data/*.ilog; do
	[[ -e $f ]] || continue
	(($(stat -c %s "$f") <= 8192)) && cp "$f" "$logs/"
done
if [[ -x $synth ]]; then
	"$synth" --events 20 --stacks 50 --frame-records 8 -o "$logs/synth-small.ilog"
	"$synth" --events 60 --mix all --unknown-kind --frame-records 16 --seed 2 -o "$logs/synth-all.ilog"
	"$synth" --events 5 --version-major 2 -o "$logs/synth-major2.ilog"
	"$synth" --events 30 --raw '93 0f 00 db ff ff ff ff 78' -o "$logs/synth-4g.ilog"
	# a byte flipped in the middle: readers go on after the damaged frame (SPEC §9)
	cp "$logs/synth-small.ilog" "$logs/synth-flipped.ilog"
	printf '\xa5' | dd of="$logs/synth-flipped.ilog" bs=1 conv=notrunc status=none \
		seek=$(($(stat -c %s "$logs/synth-small.ilog") / 2))
else
	echo "fuzz: $synth not built: seeding from the vectors only" >&2
fi

seed_dir() { # name -> a directory of seeds for it
	local name=$1 dir=$work/seeds-$1
	mkdir -p "$dir"
	[[ -d $root/tests/vectors/$name ]] && cp "$root/tests/vectors/$name"/* "$dir/" 2>/dev/null
	case $name in
	reader) cp "$logs"/* "$dir/" 2>/dev/null || true ;;
	records)
		for f in "$logs"/*; do
			# what decompresses: damaged logs give their good part
			zstd -dcq "$f" >"$dir/$(basename "$f").msgpack" 2>/dev/null || true
			[[ -s $dir/$(basename "$f").msgpack ]] || rm -f "$dir/$(basename "$f").msgpack"
		done ;;
	parse)
		local i=0 s
		for s in 1h30m 5m 250ms 1.5s 10 500m 10g 1.5GiB 4k 2026-11-22T16:20:00Z \
			2026-11-22T18:20:00.123456789+02:00 2026-11-22 @1795364400.25 cuda,host \
			cudaLaunchKernel,ncclAllReduce 18446744073s 1e30; do
			printf '%s' "$s" >"$dir/s$((i++))"
		done ;;
	esac
	echo "$dir"
}

fuzz_one() { # fuzzer -> its report on stdout, its exit status in $work/NAME.rc
	local fz=$1 name corpus arts seeds log rc=0 runs eps cov
	name=$(basename "$fz")
	corpus=$out/corpus/$name
	arts=$out/artifacts/$name
	mkdir -p "$corpus" "$arts"
	seeds=$(seed_dir "$name")
	log=$work/$name.log
	"$fz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		${FUZZ_SEED:+-seed="$FUZZ_SEED"} \
		-artifact_prefix="$arts/" "$corpus" "$seeds" >"$log" 2>&1 || rc=$?
	runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
	eps=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log")
	cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 || true)
	if ((rc != 0)); then
		echo "FAIL fuzz $name: exit $rc after ${runs:-?} runs; the report:"
		grep -E '^(==[0-9]+==|SUMMARY|    #[0-9]+ |.*runtime error|.*(Leak|crash|timeout|out-of-memory)|round trip|  read)' \
			"$log" | grep -v '^INFO:' | head -n 40 | sed 's/^/    /'
		ls -t "$arts" | head -n 3 | sed "s|^|    input: $arts/|"
	else
		echo "PASS fuzz $name: ${runs:-?} runs in ${secs}s (${eps:-?}/s), ${cov:-cov ?}, corpus $(ls "$corpus" | wc -l)"
	fi
	echo "$rc" >"$work/$name.rc"
}

njobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
for fz in "$@"; do
	while (($(jobs -rp | wc -l) >= njobs)); do
		wait -n || true
	done
	fuzz_one "$fz" &
done
wait
failed=0
for fz in "$@"; do
	[[ $(cat "$work/$(basename "$fz").rc" 2>/dev/null) == 0 ]] || failed=1
done
exit $failed
