# SPDX-License-Identifier: MIT
# Run as full root, ingero-record drops every capability but the needed
# ones once its probes are attached: its permitted, effective and bounding
# sets are then exactly that set, no_new_privs is set (a uid 0 process
# would regain its bounding set at an exec), and it still records every
# call, including of a library dlopened after the drop (attaching it needs
# CAP_BPF and CAP_PERFMON, finding it CAP_SYS_PTRACE).  With a COMMAND run
# as the sudo user it also keeps CAP_SETUID, CAP_SETGID and CAP_KILL;
# system-wide it keeps CAP_KILL unless --hold-max 0 (nothing to resume).
. "$INGERO_TESTS/cli/caps/common.bash"
need_bpf

# shellcheck disable=SC2086
want=$(cap_mask $NEEDED)
[[ $(status_field $$ CapEff) != "$want" ]] || skip "this shell has only the needed capabilities already"
mkdir venv && cp "$FAKE"/libcudart.so.13 venv/
# without holding (--hold-max 0): exactly the needed set
start_rec --hold-max 0
for f in CapPrm CapEff CapBnd; do
	assert_eq "$f after attach, --hold-max 0" "$(status_field "$RECPID" $f)" "$want"
done
stop_rec
rm -f rec.ilog
# system-wide with holding (the default): CAP_KILL as well, to resume a
# held process of any user (ingero-record --help, CAPABILITIES)
# shellcheck disable=SC2086
want=$(cap_mask $NEEDED CAP_KILL)
start_rec
for f in CapPrm CapEff CapBnd; do
	assert_eq "$f after attach" "$(status_field "$RECPID" $f)" "$want"
done
assert_eq "CapInh after attach" "$(status_field "$RECPID" CapInh)" 0000000000000000
assert_eq "NoNewPrivs after attach" "$(status_field "$RECPID" NoNewPrivs)" 1
"$W" --lib-dir "$PWD/venv" --dlopen-delay 300 --after-load 1000 --iters 200 --report a.json
stop_rec
export_log
assert_eq "counts of a library dlopened after the drop" "$(cuda_counts "$(jq .pid a.json)")" \
	"$(jq -S -c .calls a.json)"

# a COMMAND as the sudo user: the command capabilities stay
chmod 755 .
# shellcheck disable=SC2086
want=$(cap_mask $NEEDED CAP_SETUID CAP_SETGID CAP_KILL)
SUDO_UID=65534 SUDO_GID=65534 ingero-record -q -o cmd.ilog -- \
	sh -c 'sed -n "s/^CapEff:[[:space:]]*//p" /proc/$PPID/status' >cmd.out 2>rec.err ||
	fail "ingero-record -- COMMAND exited $?"
assert_eq "CapEff with a COMMAND as the sudo user" "$(cat cmd.out)" "$want"
