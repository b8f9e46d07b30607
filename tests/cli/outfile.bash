# SPDX-License-Identifier: MIT
# Sourced by the outfile cases of the filters that write -o FILE
# (tests/cli/ingero-{export,symbolize,correlate,merge}/outfile.sh): -o never
# destroys a recording.  Each function prints what it saw; the case's
# stdout.exact says what must be seen.  Not a case itself (run.sh only
# runs tests/cli/<tool>/*.sh).
synth=$INGERO_OUT/tests/tools/synth

# What a file holds: a log as its records less provenance (which says when
# and with what command line it was written), anything else as bytes.
content() {
	if [[ $(head -c 4 "$1" | od -An -tx1 | tr -d ' ') == 28b52ffd ]]; then
		ingero-export "$1" | grep -v '"type":"provenance"'
	else
		cat "$1"
	fi
}

# Temporary files left in the current directory (.NAME.XXXXXX).
leftovers() {
	local l
	l=$(find . -maxdepth 1 -name '.*.??????' | sort | tr '\n' ' ')
	echo "temporary files left: ${l:-none}"
}

# What out.file holds: "keep" as the case left it, or how many bytes.
state() {
	if echo keep | cmp -s - "$1"; then
		echo keep
	else
		echo "$(wc -c <"$1") other bytes"
	fi
}

# run PROG ARGS...: exit status and stderr on one line.
run() {
	local rc=0
	"$@" 2>err.txt || rc=$?
	echo "exit $rc: $(tr '\n' '|' <err.txt)"
}

# The logs: in.ilog and other.ilog (distinct nodes, so ingero-merge takes
# both) and big.ilog (several hundred KiB of any output).
make_logs() {
	"$synth" --events 200 --node gpu-a --seed 1 -o in.ilog
	"$synth" --events 200 --node gpu-b --seed 2 -o other.ilog
	"$synth" --events 20000 --node gpu-c --seed 3 -o big.ilog
}

# same_file PROG [ARGS...]: -o naming an input -- as given, through a
# symbolic link, through a hard link, as stdin, or an input that is a link
# to the output -- is refused before anything is written.
same_file() {
	local before o
	ln -sf in.ilog link.ilog
	ln -f in.ilog hard.ilog
	before=$(cksum <in.ilog)
	for o in in.ilog ./in.ilog link.ilog hard.ilog; do
		echo "-o $o, inputs other.ilog in.ilog: $(run "$@" -o "$o" other.ilog in.ilog)"
	done
	echo "-o in.ilog, input link.ilog: $(run "$@" -o in.ilog other.ilog link.ilog)"
	echo "-o in.ilog, stdin in.ilog: $(run "$@" -o in.ilog other.ilog - <in.ilog)"
	[[ $(cksum <in.ilog) == "$before" ]] && echo "in.ilog: unchanged"
	[[ -L link.ilog ]] && echo "link.ilog: still a link"
	leftovers
}

# works PROG [ARGS...]: a good run writes the file, as to stdout; over an
# existing file too.
works() {
	"$@" other.ilog in.ilog >want.out 2>/dev/null
	echo "new file: $(run "$@" -o out.file other.ilog in.ilog)"
	cmp -s <(content want.out) <(content out.file) && echo "  as on stdout"
	echo old >out.file
	echo "over a file: $(run "$@" -o out.file other.ilog in.ilog)"
	cmp -s <(content want.out) <(content out.file) && echo "  as on stdout"
	leftovers
}

# interrupted PROG [ARGS...]: killed by SIGINT, SIGTERM or SIGHUP while it
# reads (stdin is a FIFO that stays open), the program leaves what was at
# the path as it was and no temporary file.  env --default-signal: a
# background job starts with SIGINT ignored (and under nohup SIGHUP).
interrupted() {
	local sig pid rc i
	for sig in INT TERM HUP; do
		echo keep >out.file
		rm -f fifo && mkfifo fifo
		env --default-signal "$@" -o out.file - <fifo 2>err.txt &
		pid=$!
		exec 3>fifo
		cat in.ilog >&3
		for ((i = 0; i < 200; i++)); do
			[[ -n $(find . -maxdepth 1 -name '.out.file.??????') ]] && break
			sleep 0.05
		done
		sleep 0.2
		kill -s "$sig" "$pid"
		for ((i = 0; i < 100; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		kill -0 "$pid" 2>/dev/null && echo "SIG$sig: still running" && kill -KILL "$pid"
		rc=0
		wait "$pid" || rc=$?
		exec 3>&-
		echo "SIG$sig: exit $rc: $(tr '\n' '|' <err.txt) out.file: $(state out.file)"
		leftovers
	done 2>/dev/null # not the shell's "Hangup" notice for its job
}

# write_fails PROG [ARGS...]: the output cannot be written whole (a file
# size limit: EFBIG with SIGXFSZ ignored, death by SIGXFSZ without): what
# was at the path stays, no temporary file.
write_fails() {
	echo keep >out.file
	echo "EFBIG: $(run bash -c 'trap "" XFSZ; ulimit -f 16; exec "$@"' - "$@" -o out.file big.ilog)"
	echo "  out.file: $(state out.file)"
	leftovers
	echo "SIGXFSZ: $(run bash -c 'ulimit -f 16; exec "$@"' - "$@" -o out.file big.ilog)"
	echo "  out.file: $(state out.file)"
	leftovers
}

# damaged PROG [ARGS...]: a damaged input still gives every record before
# the damage, exit 2 (README), with -o FILE as on stdout.
damaged() {
	cp "$INGERO_TESTS/data/truncated.ilog" .
	echo old >out.file
	"$@" in.ilog truncated.ilog >want.out 2>/dev/null
	echo "damaged input: $(run "$@" -o out.file in.ilog truncated.ilog)"
	if echo old | cmp -s - out.file; then
		echo "  nothing written, out.file as it was"
	else
		cmp -s <(content want.out) <(content out.file) && echo "  as on stdout"
	fi
	leftovers
}
