#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Regenerates the golden logs in tests/data/ (see README.md there) with
# tests/tools/synth.  Only for deliberate changes: the committed files are
# the point (old logs must keep reading the same), so review `git diff`.
#   tests/data/make.sh [BUILD_DIR]      (default .output; needs synth built)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
synth=$(cd "${1:-$here/../../.output}" && pwd)/tests/tools/synth
cd "$here"
# 2026-11-22T16:20:00Z, and a monotonic clock at 1000 s
anchor=(--real-ns 1795364400000000000 --mono-ns 1000000000000)

"$synth" "${anchor[@]}" --mix all --events 3000 --stacks 20 --unknown-kind \
	--frame-records 500 --seed 7 -o training.ilog
# the last 100 bytes cut off (inside the last frame)
head -c $(($(stat -c %s training.ilog) - 100)) training.ilog >truncated.ilog
# a zstd frame magic followed by noise
{ cat training.ilog; printf '\x28\xb5\x2f\xfd\x64\x00\x01\x55\x12\x34\x56\x78\x9a\xbc\xde\xf0'; } \
	>garbage-tail.ilog
"$synth" "${anchor[@]}" --events 10 --version-major 2 -o future-major.ilog
# a cuda record whose pid is the string "pid", after 300 good events
"$synth" "${anchor[@]}" --events 300 --frame-records 100 --raw '94 04 01 02 a3 70 69 64' \
	-o bad-record.ilog
# a provenance record whose tool string claims 4 GiB (str32 0xffffffff)
"$synth" "${anchor[@]}" --events 300 --frame-records 100 --raw '93 0f 00 db ff ff ff ff 78' \
	-o huge-string.ilog
printf 'run 7: loss 0.31, lr 3e-4\n' >not-a-log.txt
ls -l "$here"
