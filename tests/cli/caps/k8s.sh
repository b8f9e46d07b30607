# SPDX-License-Identifier: MIT
# docs/k8s/ingero-record-daemonset.yaml parses (PyYAML), is a DaemonSet
# with hostPID whose recorder container adds exactly the capabilities that
# ingero-record --help and --check name (and drops ALL), is not privileged,
# mounts what it mounts read-only except the log folder, and writes its log
# to a hostPath, rotated with a bound on disk (--rotate, --keep).  No cluster needed.
. "$INGERO_TESTS/cli/caps/common.bash"
python3 -c 'import yaml' 2>/dev/null || fail "python3-yaml not installed (tests/deps.txt)"
yaml=$INGERO_TESTS/../docs/k8s/ingero-record-daemonset.yaml
[[ -f $yaml ]] || fail "$yaml missing"
if [[ $(id -u) == 0 ]]; then
	read -r -a only <<<"$(setpriv_args $NEEDED)"
	checked=$("${only[@]}" ingero-record --check 2>/dev/null | sed -n 's/^ok   capabilities  *//p')
	assert_eq "--check's list = --help's" "$checked" "$NEEDED"
fi
python3 - "$yaml" "$NEEDED" <<'PY' || fail "the DaemonSet does not match"
import sys, yaml
path, needed = sys.argv[1], sys.argv[2].split()
docs = [d for d in yaml.safe_load_all(open(path)) if d]
def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)
ds = [d for d in docs if d.get("kind") == "DaemonSet"]
if len(ds) != 1:
    fail("want one DaemonSet, got %d" % len(ds))
spec = ds[0]["spec"]["template"]["spec"]
if spec.get("hostPID") is not True:
    fail("hostPID is not true")
cs = [c for c in spec["containers"] if "ingero-record" in " ".join(c.get("command", []) + c.get("args", []))]
if len(cs) != 1:
    fail("want one container running ingero-record, got %d" % len(cs))
c = cs[0]
sc = c["securityContext"]
if sc.get("privileged", False):
    fail("privileged: true grants every capability")
caps = sc["capabilities"]
want = [n[len("CAP_"):] for n in needed]
if caps.get("add") != want:
    fail("capabilities.add %s, want %s (ingero-record --help)" % (caps.get("add"), want))
if caps.get("drop") != ["ALL"]:
    fail("capabilities.drop %s, want [ALL]" % caps.get("drop"))
if sc.get("runAsUser") != 0:
    fail("runAsUser is not 0")
vols = {v["name"]: v for v in spec.get("volumes", [])}
mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
if "/sys/kernel/btf" not in mounts or not mounts["/sys/kernel/btf"].get("readOnly"):
    fail("/sys/kernel/btf is not mounted read-only")
logs = [m for m in mounts.values() if "hostPath" in vols[m["name"]] and not m.get("readOnly")]
for p, m in mounts.items():
    if "hostPath" not in vols[m["name"]]:
        fail("%s is not a hostPath" % p)
if len(logs) < 1:
    fail("no writable hostPath for the log")
for m in mounts.values():
    if not m.get("readOnly") and m not in logs:
        fail("%s is writable" % m["mountPath"])
text = " ".join(c.get("command", []) + c.get("args", []))
if not any(m["mountPath"] in text for m in logs):
    fail("the log is not written under a writable hostPath mount")
# always on: bounded disk (--rotate with --keep or --keep-size)
if "--rotate" not in text or not ("--keep" in text):
    fail("the recorder does not rotate its files with a bound (--rotate, --keep)")
print("ok: %s" % " ".join(want))
PY
# the systemd unit: the same capabilities, bounded disk too
unit=$INGERO_TESTS/../docs/systemd/ingero-record.service
exec_line=$(grep '^ExecStart=' "$unit") || fail "$unit: no ExecStart"
[[ $exec_line == *--rotate* && $exec_line == *--keep* ]] || fail "$unit: no --rotate/--keep"
for c in $NEEDED; do
	grep -q "^CapabilityBoundingSet=.*$c" "$unit" || fail "$unit: $c not in its bounding set"
done
