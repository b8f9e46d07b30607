#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The test harness behind `make test` (team GUIDE "Tests").
#
#   tests/run.sh [PATTERN...]     run every test whose id contains a PATTERN
#
# Environment (the Makefile sets the first two):
#   INGERO_BIN    directory of the built programs (put first on PATH for cases)
#   INGERO_OUT    build directory: unit binaries in $INGERO_OUT/tests/unit/,
#                 test tools such as $INGERO_OUT/tests/tools/synth
#   INGERO_TESTS  absolute path of tests/ (set here if unset)
#   CI=true       a skipped test counts as a failure (CI must run everything)
#   INGERO_TEST_TIMEOUT  seconds one unit binary or case may run (default 300)
#   INGERO_TEST_JOBS     groups run at once (default: the number of CPUs)
#   INGERO_KEEP=1 keep the temp directory of a failed case and print its path
#   INGERO_TEST_EXCLUDE  space-separated id substrings not to run (make asan
#                 leaves out the real-recording scenario cases: timing-based,
#                 and their code runs under ASan in the other cases); their
#                 number is printed, they count in none of the totals
#
# Groups: each unit binary, and each tests/cli/<tool>/ directory (its cases
# in name order, one at a time), run in parallel with each other.  Tools
# whose cases need the machine to themselves -- BPF, one recorder at a
# time, timing-based diagnoses -- run afterwards, alone: those named in
# EXCLUSIVE_TOOLS below and any whose directory holds a file EXCLUSIVE.
#
# Tests:
#   unit/<name>   $INGERO_OUT/tests/unit/<name>, built from tests/unit/<name>.c,
#                 prints TAP: "ok N - d", "not ok N - d", "ok N - d # SKIP why",
#                 and a "1..N" plan; every TAP line is one counted test.
#   cli/<tool>/<case>   tests/cli/<tool>/<case>.sh, run with bash in a fresh
#                 temp directory, stdin from /dev/null, compared with
#                 <case>.exit (expected status, default 0),
#                 <case>.stdout.exact (byte for byte) and
#                 <case>.stderr.glob (a shell pattern the whole stderr matches).
#                 Exit 77 means skip (say why on stderr).
#
# The last line is always "N passed, N failed, N skipped"; the exit status
# is 1 if anything failed.

set -uo pipefail
export LC_ALL=C TZ=UTC

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")
export INGERO_TESTS=${INGERO_TESTS:-$here}
export INGERO_OUT=${INGERO_OUT:-$root/.output}
export INGERO_BIN=${INGERO_BIN:-$root/bin}
timeout_s=${INGERO_TEST_TIMEOUT:-300}
ci=0
case ${CI:-} in true | 1 | yes) ci=1 ;; esac

EXCLUSIVE_TOOLS=" ingero-record ingero-demo "
njobs=${INGERO_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
passed=0 failed=0 skipped=0
patterns=("$@")
scratch=$(mktemp -d "${TMPDIR:-/tmp}/ingero-tests.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT

read -r -a excludes <<<"${INGERO_TEST_EXCLUDE:-}"
nexcluded=0
excluded() {
	local p
	for p in "${excludes[@]}"; do
		[[ $1 == *"$p"* ]] && return 0
	done
	return 1
}
selected() {
	local id=$1 p
	excluded "$id" && return 1
	((${#patterns[@]})) || return 0
	for p in "${patterns[@]}"; do
		[[ $id == *"$p"* ]] && return 0
	done
	return 1
}

# show LABEL FILE [MAX]: for a failure report, at most MAX lines of FILE,
# indented; of a longer file its first and last halves of them, since a
# case says why it failed last (its head alone cut CI's failure messages
# off), and between them the lines of the part left out that head a
# chain or give a verdict.
show() {
	local label=$1 file=$2 max=${3:-20} n
	[[ -s $file ]] || return 0
	n=$(wc -l <"$file")
	echo "    --- $label"
	if ((n <= max)); then
		sed 's/^/    /' "$file"
	else
		head -n $((max / 2)) "$file" | sed 's/^/    /'
		echo "    ... ($((n - max)) lines left out; of them, the report's verdicts:)"
		# the lines that say what a report found: its chains' headings,
		# the demo's and the gate's verdicts (a report's middle)
		sed -n "$((max / 2 + 1)),$((n - (max - max / 2)))p" "$file" |
			grep -E '^(#[0-9]+ +(HIGH|MEDIUM|LOW) |   Root cause: |demo check: |RESULT: |No causal chain)' |
			head -n 12 | sed 's/^/    > /'
		tail -n $((max - max / 2)) "$file" | sed 's/^/    /'
	fi
	return 0
}

# A skip is a failure under CI=true.
count_skip() {
	local id=$1 why=$2
	if ((ci)); then
		echo "FAIL $id: skipped under CI=true: $why"
		failed=$((failed + 1))
	else
		echo "SKIP $id: $why"
		skipped=$((skipped + 1))
	fi
}

status_text() {
	case $1 in
	124) echo "timed out after ${timeout_s}s" ;;
	*) if (($1 > 128)); then echo "killed by signal $(($1 - 128))"; else echo "exit status $1"; fi ;;
	esac
}

# The seconds a test took, kept for the slowest-tests lines at the end.
took() { # id start
	local t0=${2/./} t1=${EPOCHREALTIME/./}
	printf '%d.%06d %s\n' $(((t1 - t0) / 1000000)) $(((t1 - t0) % 1000000)) "$1" \
		>>"$scratch/times"
}

run_unit() {
	local bin=$1 id=$2 dir rc line n=0 plan= fails=0 skips=0 p=0 t0=$EPOCHREALTIME
	dir=$(mktemp -d "$scratch/unit.XXXXXX")
	mkdir -p "$dir/cwd"
	(cd "$dir/cwd" && timeout -k 10 "$timeout_s" "$bin" </dev/null >"$dir/out" 2>"$dir/err")
	rc=$?
	took "$id" "$t0"
	: >"$dir/report"
	while IFS= read -r line; do
		case $line in
		"not ok"*)
			n=$((n + 1)) fails=$((fails + 1))
			echo "  $line" >>"$dir/report" ;;
		"ok "*)
			n=$((n + 1))
			shopt -s nocasematch
			if [[ $line == *"# skip"* ]]; then
				skips=$((skips + 1))
				count_skip "$id: ${line#ok }" "${line##*# [Ss][Kk][Ii][Pp]}"
			else
				p=$((p + 1))
			fi
			shopt -u nocasematch ;;
		"#"*)
			# diagnostics belong to the test line before them
			((fails)) && echo "  $line" >>"$dir/report" ;;
		1..*) plan=${line#1..} ;;
		esac
	done <"$dir/out"
	passed=$((passed + p))
	failed=$((failed + fails))
	local extra=
	if [[ -z $plan ]]; then
		extra="no TAP plan: $(status_text $rc) after $n tests"
	elif ((plan != n)); then
		extra="planned $plan tests, ran $n ($(status_text $rc))"
	elif ((rc != 0 && fails == 0)); then
		extra="$(status_text $rc) though every test passed"
	fi
	if [[ -n $extra ]]; then
		failed=$((failed + 1))
		fails=$((fails + 1))
		echo "  $extra" >>"$dir/report"
	fi
	if ((fails)); then
		echo "FAIL $id: $fails of $n failed"
		cat "$dir/report"
		show stderr "$dir/err" 40
	else
		local sk=
		((skips)) && sk=", $skips skipped"
		echo "PASS $id ($p passed$sk)"
	fi
	rm -rf "$dir"
}

run_case() {
	local sh=$1 id=$2 base=${1%.sh} work cwd rc want=0 why= msg= t0=$EPOCHREALTIME
	work=$(mktemp -d "$scratch/case.XXXXXX")
	cwd="$work/cwd"
	mkdir "$cwd"
	(cd "$cwd" && PATH="$INGERO_BIN:$PATH" timeout -k 10 "$timeout_s" bash "$sh" \
		</dev/null >"$work/stdout" 2>"$work/stderr")
	rc=$?
	took "$id" "$t0"
	[[ -f $base.exit ]] && want=$(tr -d ' \n' <"$base.exit")
	if ((rc == 77 && want != 77)); then
		why=$(tail -n 1 "$work/stderr")
		count_skip "$id" "${why:-no reason given}"
		rm -rf "$work"
		return
	fi
	if [[ $rc != "$want" ]]; then
		msg="$(status_text $rc), expected $want"
	elif [[ -f $base.stdout.exact ]] && ! cmp -s "$base.stdout.exact" "$work/stdout"; then
		msg="stdout differs from $(basename "$base").stdout.exact"
		diff -u --label expected --label actual "$base.stdout.exact" "$work/stdout" \
			>"$work/diff"
	elif [[ -f $base.stderr.glob ]]; then
		local glob err
		glob=$(<"$base.stderr.glob")
		err=$(<"$work/stderr")
		# shellcheck disable=SC2053 # the right side is a pattern on purpose
		[[ $err == $glob ]] || msg="stderr does not match $(basename "$base").stderr.glob"
	fi
	if [[ -z $msg ]]; then
		passed=$((passed + 1))
		echo "PASS $id"
		rm -rf "$work"
		return
	fi
	failed=$((failed + 1))
	echo "FAIL $id: $msg"
	show diff "$work/diff" 30
	show stdout "$work/stdout" 10
	show stderr "$work/stderr" 20
	[[ -f $base.stderr.glob && -n $(<"$base.stderr.glob") ]] &&
		show "stderr.glob" "$base.stderr.glob" 5
	if [[ ${INGERO_KEEP:-} == 1 ]]; then
		mv "$work" "${TMPDIR:-/tmp}/" && echo "    kept in ${TMPDIR:-/tmp}/$(basename "$work")"
	else
		rm -rf "$work"
	fi
}

# A group runs in a subshell; its report goes to $1.log, its counts to $1.n.
run_group() {
	local base=$1 item
	shift
	passed=0 failed=0 skipped=0
	for item in "$@"; do
		case $item in
		unit/*) run_unit "$INGERO_OUT/tests/$item" "$item" ;;
		cli/*) run_case "$INGERO_TESTS/$item.sh" "$item" ;;
		esac
	done >"$base.log" 2>&1
	echo "$passed $failed $skipped" >"$base.n"
}

# Print and count the groups that have finished.
pending=()
reap() {
	local base rest=() p f s
	for base in "${pending[@]}"; do
		if [[ -e $base.n ]]; then
			cat "$base.log"
			read -r p f s <"$base.n"
			passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		else
			rest+=("$base")
		fi
	done
	pending=("${rest[@]}")
}

ngroups=0
start_group() { # items...; in the background, at most $njobs at once
	local base=$scratch/group.$((ngroups++))
	while (($(jobs -rp | wc -l) >= njobs)); do
		wait -n 2>/dev/null || true
		reap
	done
	pending+=("$base")
	run_group "$base" "$@" &
}

# Unit tests: one binary per tests/unit/*.c (stale binaries are ignored).
for src in "$INGERO_TESTS"/unit/*.c; do
	[[ -e $src ]] || continue
	name=$(basename "$src" .c)
	id="unit/$name"
	excluded "$id" && nexcluded=$((nexcluded + 1))
	selected "$id" || continue
	if [[ ! -x $INGERO_OUT/tests/unit/$name ]]; then
		echo "FAIL $id: $INGERO_OUT/tests/unit/$name not built"
		failed=$((failed + 1))
		continue
	fi
	start_group "$id"
done

# CLI cases, a group per tool; exclusive tools wait for the end.
exclusive=() excl_tools=" "
for dir in "$INGERO_TESTS"/cli/*/; do
	tool=$(basename "$dir")
	cases=()
	for sh in "$dir"*.sh; do
		[[ -e $sh ]] || continue
		id="cli/$tool/$(basename "$sh" .sh)"
		excluded "$id" && nexcluded=$((nexcluded + 1))
		selected "$id" && cases+=("$id")
	done
	((${#cases[@]})) || continue
	if [[ $EXCLUSIVE_TOOLS == *" $tool "* || -e $dir/EXCLUSIVE ]]; then
		exclusive+=("${cases[*]}")
		excl_tools+="$tool "
	else
		start_group "${cases[@]}"
	fi
done
wait
reap
for group in "${exclusive[@]}"; do
	# shellcheck disable=SC2086 # a group is a list of ids without spaces
	start_group $group
	wait
	reap
done
for base in "${pending[@]}"; do
	# a group's shell died before it could report: its tests count as failed
	echo "FAIL $(head -c 200 "$base.log" 2>/dev/null | head -n 1): a test group ended without a report"
	failed=$((failed + 1))
done

# An expectation file without its case is a renamed or deleted test.
for f in "$INGERO_TESTS"/cli/*/*.exit "$INGERO_TESTS"/cli/*/*.stdout.exact \
	"$INGERO_TESTS"/cli/*/*.stderr.glob; do
	[[ -e $f ]] || continue
	base=${f%.exit}
	base=${base%.stdout.exact}
	base=${base%.stderr.glob}
	id="cli/$(basename "$(dirname "$f")")/$(basename "$base")"
	selected "$id" || continue
	if [[ ! -e $base.sh ]]; then
		echo "FAIL $id: $(basename "$f") has no $(basename "$base").sh"
		failed=$((failed + 1))
	fi
done

# where the time went: the slowest tests, and the exclusive groups' share
# (they run alone, one after another)
if [[ -s $scratch/times ]]; then
	# every test's seconds, slowest first, for whoever looks for time to save
	sort -rn "$scratch/times" >"$INGERO_OUT/test-times" 2>/dev/null || true
	echo "slowest (all in $INGERO_OUT/test-times): $(sort -rn "$scratch/times" | head -n 8 | awk '{ printf "%s%s %.0fs", (NR > 1 ? ", " : ""), $2, $1 }')"
	awk -v ex="$excl_tools" '
		{ split($2, a, "/"); if (a[1] == "cli" && index(ex, " " a[2] " ")) e += $1; else o += $1 }
		END { printf "test time: %.0f s in exclusive groups (run alone), %.0f s in the others (run %d at a time)\n", e, o, '"$njobs"' }' \
		"$scratch/times"
fi
((nexcluded)) && echo "$nexcluded tests not run (INGERO_TEST_EXCLUDE=${INGERO_TEST_EXCLUDE})"
echo "$passed passed, $failed failed, $skipped skipped"
((failed == 0))
