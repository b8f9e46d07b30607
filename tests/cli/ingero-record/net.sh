# SPDX-License-Identifier: MIT
# The network (format 1.3): the recorded command sends 32 MiB over TCP on
# loopback, over IPv4 and over IPv6, to a receiver of its own, on two ports
# private to the test whose data segments a firewall rule of the test's own
# drops at random (iptables / ip6tables statistic match; this kernel has no
# netem), so each sender's flow retransmits for real.  Its retrans records
# name both flows with their 4-tuples (addresses as text), IPv4 and IPv6,
# the sending process as owner (the retransmissions are sent from timers,
# the owner comes from the kernel's socket table); its sockio records count
# exactly the bytes it sent and received.
. "$INGERO_TESTS/cli/ingero-record/common.bash"
need_bpf
for t in iptables ip6tables; do
	command -v $t >/dev/null && $t -w -S INPUT >/dev/null 2>&1 && continue
	[[ ${CI:-} == true ]] && fail "CI: $t is missing (tests/deps.txt)"
	skip "no $t"
done
# two free ports, then the rules on them only
read -r p4 p6 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1", 0)) for x in s]
print(*[x.getsockname()[1] for x in s])')
rule() { # rule -I|-D TOOL PORT
	$2 -w "$1" INPUT -i lo -p tcp --dport "$3" -m length --length 1000:65535 -m statistic \
		--mode random --probability 0.05 -m comment --comment "ingero-test-net-$3" -j DROP
}
trap 'rule -D iptables "$p4" 2>/dev/null; rule -D ip6tables "$p6" 2>/dev/null; true' EXIT
rule -I iptables "$p4" || fail "iptables rule"
rule -I ip6tables "$p6" || fail "ip6tables rule"
cat >send.py <<'PY'
import os, socket, sys, threading
def run(fam, host, port):
    srv = socket.socket(fam)
    srv.bind((host, port))
    srv.listen(1)
    def sink():
        c, _ = srv.accept()
        while c.recv(65536):
            pass
        c.close()
    t = threading.Thread(target=sink)
    t.start()
    c = socket.socket(fam)
    # segments under 64 KiB: ip6tables' length match cannot see a 64 KiB one
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 16000)
    c.connect((host, port))
    buf = b"x" * 65536
    for _ in range(512):                 # 32 MiB
        c.sendall(buf)
    c.close()
    t.join()
run(socket.AF_INET, "127.0.0.1", int(sys.argv[1]))
run(socket.AF_INET6, "::1", int(sys.argv[2]))
PY
ingero-record -o rec.ilog -- python3 send.py "$p4" "$p6" 2>rec.err || fail "ingero-record failed"
export_log
py=$(jq -r 'select(.type=="process" and .comm=="python3") | .pid' log.jsonl | head -n 1)
[[ -n $py ]] || fail "no process record of the sender"
for f in "4 127.0.0.1 $p4" "6 ::1 $p6"; do
	read -r fam addr port <<<"$f"
	assert_eq "IPv$fam flow to port $port: retransmitted, owned by the sender, its addresses" \
		"$(jq -s -c --argjson p "$py" --argjson f "$fam" --argjson d "$port" '[.[] |
			select(.type=="retrans" and .family==$f and .dport==$d)] |
			[(map(.count) | add) > 0, (map(.pid) | unique), (map(.comm) | unique),
			 (map(.saddr) | unique), (map(.daddr) | unique), (map(.flows) | unique)]' log.jsonl)" \
		"[true,[$py],[\"python3\"],[\"$addr\"],[\"$addr\"],[1]]"
done
# the sender and its receiver threads are one process: 64 MiB each way
assert_eq "the sender's TCP bytes sent and received" \
	"$(jq -s -c --argjson p "$py" '[.[] | select(.type=="sockio" and .pid==$p)] |
		[(map(.tx_bytes) | add), (map(.rx_bytes) | add)]' log.jsonl)" "[67108864,67108864]"
