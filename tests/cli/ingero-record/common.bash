# SPDX-License-Identifier: MIT
# Shared by the ingero-record cases (sourced; not a case itself).  The
# cases record the fake CUDA workload (tests/fakecuda) with the real
# recorder in the real kernel and compare the log with the workload's own
# report of what it did.
set -euo pipefail

FAKE=$INGERO_OUT/tests/fakecuda
W=$FAKE/workload
# a lock of our own: other recorders on this machine must not block us
export INGERO_RECORD_LOCK=$PWD/record.lock
# and a list of the CUDA library files attached on earlier runs of our own
export INGERO_RECORD_LIBS=$PWD/cuda-libs

skip() { echo "$*" >&2; exit 77; }
fail() {
	echo "FAIL: $*" >&2
	[[ -f rec.err ]] && sed 's/^/  rec: /' rec.err | tail -n 20 >&2
	# a recorder left running (perhaps stopped) would go on tracing, and
	# holding, the whole machine after this case: end it
	if [[ -n ${RECPID:-} ]] && kill -0 "$RECPID" 2>/dev/null; then
		kill -CONT "$RECPID" 2>/dev/null || true
		kill -TERM "$RECPID" 2>/dev/null || true
	fi
	exit 1
}

# Root and working BPF are needed; outside CI their absence is a skip.
need_bpf() {
	[[ $(id -u) == 0 ]] || skip "needs root (CAP_BPF, CAP_PERFMON)"
	[[ -x $W ]] || fail "$W not built"
	if ! ingero-record --check 2>/dev/null | grep -q '^ok   bpf '; then
		skip "BPF programs cannot be loaded here: $(ingero-record --check 2>&1 | grep ' bpf ')"
	fi
}

# start_rec ARGS...: record in the background to rec.ilog, wait until the
# probes are attached ("recording to" on stderr).
start_rec() {
	# the redirection truncates rec.err only once the child runs: remove it
	# first, or the poll below can see the previous recorder's start line
	rm -f rec.err
	ingero-record -o rec.ilog "$@" 2>rec.err &
	RECPID=$!
	wait_rec
}

# wait_rec: until the recorder RECPID (stderr in rec.err) has attached.
wait_rec() {
	local i
	for ((i = 0; i < 400; i++)); do
		grep -q 'recording to' rec.err 2>/dev/null && return 0
		kill -0 "$RECPID" 2>/dev/null || fail "ingero-record exited early"
		sleep 0.05
	done
	fail "ingero-record did not start in 20s"
}

# stop_rec [SIGNAL]: SIGINT (or SIGNAL), expect a clean exit 0 within 30 s.
stop_rec() {
	kill -"${1:-INT}" "$RECPID"
	local i rc=0
	for ((i = 0; i < 600; i++)); do
		kill -0 "$RECPID" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$RECPID" 2>/dev/null; then
		kill -KILL "$RECPID"
		fail "ingero-record still running 30 s after SIG${1:-INT}"
	fi
	wait "$RECPID" || rc=$?
	[[ $rc == 0 ]] || fail "ingero-record exited $rc after SIG${1:-INT}"
}

# wait_for FILE: until a workload says it has loaded its libraries.
wait_for() {
	local i
	for ((i = 0; i < 400; i++)); do
		[[ -s $1 ]] && return 0
		sleep 0.05
	done
	fail "$1 never appeared"
}

# state_of PID: its state letter into $ST (gone: g), read by the shell
# itself (no program run, no subshell)
state_of() {
	local l
	ST=g
	read -r l <"/proc/$1/stat" 2>/dev/null || return 0
	l=${l##*) }
	ST=${l%% *}
}

# proc_state PID: its state letter in /proc (T: stopped), or "gone"
proc_state() {
	state_of "$1"
	[[ $ST == g ]] && echo gone || echo "$ST"
}

# wait_held PID: until PID is stopped (held), 10 s at most
wait_held() {
	local i
	for ((i = 0; i < 1000; i++)); do
		[[ $(proc_state "$1") == T ]] && return 0
		sleep 0.01
	done
	fail "process $1 was never held (state $(proc_state "$1"))"
}

# hold_where WATCHDOG: the dying recorder's and the watchdog's threads:
# state, flags (PF_EXITING 0x4), wait channel and kernel stack (builtins
# only, as kill_holder's loop).
hold_where() {
	local p t l f w x
	echo "at +$(((${EPOCHREALTIME/./} - t0) / 1000)) ms:"
	for p in "$RECPID" "$1"; do
		for t in /proc/"$p"/task/*; do
			read -r l <"$t/stat" 2>/dev/null || continue
			l=${l##*) }
			f=($l)
			read -r -d "" w <"$t/wchan" 2>/dev/null || true
			printf -v x '%#x' "${f[6]}"
			echo "$p/${t##*/}: state ${f[0]} flags $x wchan $w"
			while read -r l; do echo "    $l"; done <"$t/stack" 2>/dev/null
		done
	done
}

# kill_holder PID WATCHDOG: PID is held by the recorder RECPID, which is
# stopped: it stays held, then SIGKILL the recorder; PID must be resumed
# within 1 s, the watchdog gone.
kill_holder() {
	local w=$1 wd=$2 i t0 ms
	wait_held "$w"
	sleep 0.3
	[[ $(proc_state "$w") == T ]] || fail "released before --hold-max with the recorder stopped"
	# watched with shell builtins only: a dying recorder's uprobes are taken
	# out under a lock that every fork() of the host waits for (seconds on a
	# loaded host), so a watching loop that ran programs (date, sleep) would
	# time that and not the watchdog
	local tick t1
	[[ -p tick ]] || mkfifo tick
	exec {tick}<>tick
	kill -KILL "$RECPID"
	t0=${EPOCHREALTIME/./}
	for ((i = 0; i < 400; i++)); do
		state_of "$w"
		[[ $ST != T ]] && break
		read -r -t 0.005 -u "$tick" || true
		# still stopped after about half a second: where the recorder's
		# exit and the watchdog are, for the failure's message
		((i == 100)) && hold_where "$wd" >hold-where.txt
	done
	t1=${EPOCHREALTIME/./}
	exec {tick}>&-
	ms=$(((t1 - t0) / 1000))
	echo "resumed ${ms} ms after the recorder's SIGKILL" >&2
	((ms < 1000)) || { cat hold-where.txt >&2; fail "process $w still stopped ${ms} ms after the recorder's SIGKILL"; }
	wait "$RECPID" 2>/dev/null || true
	# gone, or a zombie its new parent has not reaped yet
	for ((i = 0; i < 100; i++)); do
		[[ $(proc_state "$wd") == [gZ]* ]] && break
		sleep 0.01
	done
	[[ $(proc_state "$wd") == [gZ]* ]] || fail "watchdog $wd still running after the recorder died"
}

# log.jsonl from rec.ilog; a damaged log fails the case.
export_log() {
	timeout 120 ingero-export rec.ilog >log.jsonl || fail "ingero-export failed on rec.ilog"
}

# last_loss SOURCE [FILTER]: the last loss record of SOURCE in log.jsonl (its
# counts so far), or null; with FILTER, that jq filter of it (.lost, .seen)
last_loss() {
	jq -s -c --arg s "$1" "[.[] | select(.type==\"loss\" and .source==\$s)] | last | ${2:-.}" log.jsonl
}

# per-op counts of cuda events of the given pids (space separated), as a JSON object
cuda_counts() {
	local pids=$1
	jq -S -s -c --arg pids "$pids" '($pids | split(" ") | map(tonumber)) as $p
		| [.[] | select(.type=="cuda" and (.pid as $x | $p | index($x)))]
		| group_by(.op) | map({key: .[0].op, value: length}) | from_entries' log.jsonl
}

# assert_eq WHAT GOT WANT
assert_eq() {
	[[ $2 == "$3" ]] || fail "$1: got $2, want $3"
}

# record_workload "RECORDER ARGS" WORKLOAD ARGS...: the workload loads its
# libraries and waits; it is recorded with --pid from its first call to its
# exit; then log.jsonl.  Sets wpid; the workload's report is report.json.
record_workload() {
	local rec_args=$1
	shift
	rm -f ready go # a case may record several workloads
	"$W" "$@" --ready-file ready --wait-file go --report report.json &
	wpid=$!
	wait_for ready
	# shellcheck disable=SC2086 # the recorder's args are words on purpose
	start_rec --pid "$wpid" $rec_args
	touch go
	wait "$wpid" || fail "workload failed"
	stop_rec
	export_log
}

# make_cgroup NAME: a cgroup NAME under this shell's, in the hierarchy the
# recorder reads cgroup ids from (the unified one: /sys/fs/cgroup, or
# /sys/fs/cgroup/unified on a hybrid host; v1 memory on a v1 host without
# it): its path in that hierarchy in rel, its folder in cg; a skip when
# none can be made.
make_cgroup() {
	local root self
	if [[ -e /sys/fs/cgroup/cgroup.controllers || ! -d /sys/fs/cgroup/memory ]]; then
		root=/sys/fs/cgroup
		self=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
	elif [[ -e /sys/fs/cgroup/unified/cgroup.controllers ]]; then
		root=/sys/fs/cgroup/unified
		self=$(awk -F: '$1 == "0" { print $3 }' /proc/self/cgroup)
	else
		root=/sys/fs/cgroup/memory
		self=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
	fi
	rel=${self%/}/$1
	cg=$root$rel
	mkdir "$cg" || skip "cannot make a cgroup under $root$self"
}
