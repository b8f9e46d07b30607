# SPDX-License-Identifier: MIT
# Shared by the capability cases (sourced; not a case itself): the
# capability set the recorder names, read from its --help, as a mask.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
# the COMMAND capabilities are only listed under sudo
unset SUDO_UID SUDO_GID

# a failed case leaves no recorder or workload behind
caps_cleanup() {
	local p
	for p in ${RECPID:-} ${wpid:-}; do
		# still ours (a reaped pid may have been reused)
		grep -qs -e ingero-record -e workload "/proc/$p/cmdline" && kill -INT "$p"
	done
	return 0
}
trap caps_cleanup EXIT

command -v setpriv >/dev/null || fail "setpriv not installed (tests/deps.txt: util-linux)"

# NEEDED: "CAP_BPF CAP_PERFMON ..." from the --help line "needed: ..."
NEEDED=$(ingero-record --help | sed -n 's/^  needed: *//p')
[[ -n $NEEDED ]] || fail "ingero-record --help names no needed capabilities"

# cap_bit NAME: its number, as setpriv knows it (setpriv --list-caps order)
cap_bit() {
	local want=${1#CAP_} i=0 c
	want=${want,,}
	for c in $(setpriv --list-caps); do
		[[ $c == "$want" ]] && { echo "$i"; return 0; }
		i=$((i + 1))
	done
	fail "setpriv does not know $1"
}

# cap_mask NAME...: the 16-digit hex mask /proc/PID/status prints
cap_mask() {
	local m=0 n
	for n in "$@"; do
		m=$((m | (1 << $(cap_bit "$n"))))
	done
	printf '%016x\n' "$m"
}

# setpriv_args NAME...: run as uid 0 with only these capabilities
setpriv_args() {
	local caps="" n
	for n in "$@"; do
		n=${n#CAP_}
		caps+=",+${n,,}"
	done
	echo "setpriv --reuid=0 --regid=0 --clear-groups --inh-caps=-all --ambient-caps=-all --bounding-set=-all$caps --"
}

# status_field PID FIELD: e.g. CapEff of a running process
status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"
}
