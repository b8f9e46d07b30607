# SPDX-License-Identifier: MIT
#
# Recomputes, from the raw records of a log (ingero-export jsonl), every
# number the top causal chain's root-cause sentence quotes, and compares.
# Independent of lib/: exact nearest-rank quantiles over sorted durations,
# plain sums and counts over [ts_start, ts_end).
#
#   jq -n --slurpfile c CORRELATE.jsonl --slurpfile r EXPORT.jsonl \
#         --arg pattern P --arg culprit COMM --arg op OP -f check.jq
#
# Prints one line per check: "ok: what" or "FAIL: what: expected E, got G".
# Tolerances: durations and sizes are printed with 3 significant digits
# (<= 0.5%) from histograms within 0.39%: 1% + 1 ns; percentages to 0.1;
# times to 0.01 s; counts exactly.
#
# Kernel launches recorded at entry (--launch-timing N; SPEC 5.4, cuda
# flags bit 2, UNTIMED) have no duration: they are calls (every count of
# calls, rates and "made N CUDA calls" count them) but stay out of every
# duration figure (quantiles, medians, first calls, spikes, stalls and the
# call counts those are taken over, as the engine's histograms hold only
# timed calls); a sum of an op's time counts each at the mean of that
# op's timed calls in the process (optime), as the statistics do.  The
# wall (first call to last return) takes an untimed launch's end as its
# start, as the engine does.

def unit: {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9};
def bunit: {"B": 1, "KiB": 1024, "MiB": 1048576, "GiB": 1073741824, "TiB": 1099511627776};
def dn: capture("^(?<v>[0-9.]+) (?<u>ns|us|ms|s)$") | (.v | tonumber) * unit[.u];
def bn: capture("^(?<v>[0-9.]+) (?<u>B|KiB|MiB|GiB|TiB)$") | (.v | tonumber) * bunit[.u];
def rank($q; $n): (($n * (($q * 1000) | round) + 999) / 1000 | floor) as $r | if $r < 1 then 1 else $r end;
def quant($q): sort as $s | ($s | length) as $n | if $n == 0 then null else $s[rank($q; $n) - 1] end;
def timed: (.flags / 4 | floor) % 2 == 0;
# the time of a process's calls xs, each op's untimed launches at the mean
# of its timed calls (0 when it has none)
def optime: group_by(.op) | map([.[] | select(timed)] as $t |
  if ($t | length) == 0 then 0 else ($t | map(.dur_ns) | add) * length / ($t | length) end) | add // 0;
def near($a; $b; $rel; $abs): ($a != null and $b != null) and ((($a - $b) | fabs) <= ($rel * ([($a | fabs), ($b | fabs)] | max) + $abs));

def check($what; $ok; $exp; $got):
  if $ok then "ok: \($what)" else "FAIL: \($what): expected \($exp), got \($got)" end;
def dur($what; $exp; $text): check($what; near($exp; ($text | dn); 0.01; 1); $exp; $text);
def size($what; $exp; $text): check($what; near($exp; ($text | bn); 0.01; 1); $exp; $text);
def count($what; $exp; $text): check($what; ($exp == ($text | tonumber)); $exp; $text);
# the log-normal fit of a chain's metrics m (the engine's causal_lognorm):
# sigma = ln(q3 / q1) / 1.349 or its floor, and the calls it predicts
# above $at among the calls considered
def fit_sigma($m): (($m.fit_q3_ns / $m.fit_q1_ns | log) / 1.349) as $sq |
  if $sq < $m.fit_sigma * 0.999 then $m.fit_sigma else $sq end;
def fit_above($m; $at): $m.calls_considered * 0.5 *
  ((($at | log) - ($m.fit_median_ns | log)) / (fit_sigma($m) * (2 | sqrt)) | erfc);
def pct($what; $exp; $text): check($what; near($exp; ($text | tonumber); 0.005; 0.051); $exp; $text);
def secs($what; $exp; $text): check($what; near($exp; ($text | tonumber); 0; 0.0051); $exp; $text);

($c | map(select(.type == "chain"))) as $chains |
($r) as $recs |
[$recs[] | select(.type == "cuda")] as $cuda |
[$recs[] | select(.type == "host")] as $host |
[$recs[] | select(.type == "snapshot")] as $snaps |
# a process's container as reports name it, from its process record
def ctrlabel($pid): ([$recs[] | select(.type == "process" and .pid == $pid)] | last) as $pr |
  if $pr == null then null
  elif ($pr.container_id // "") != "" and ($pr.pod_uid // "") != "" then "pod \($pr.pod_uid), container \($pr.container_id[0:12])"
  elif ($pr.container_id // "") != "" then "container \($pr.container_id[0:12])"
  else "cgroup \($pr.cgroup)" end;
def ctrcheck($p): if $p.ctr then check("culprit container"; $p.ctr == ctrlabel($p.q | tonumber); ctrlabel($p.q | tonumber); $p.ctr) else empty end;
if ($chains | length) == 0 then "FAIL: no chain at all (expected \($pattern))" else
$chains[0] as $ch |
$ch.metrics as $m |
$m.t0_ns as $t0 |
($ch.ts_start) as $a | ($ch.ts_end) as $b |
def inwin: .ts_ns >= $a and .ts_ns < $b;
def rel($ts): ($ts - $t0) / 1e9;
[$cuda[] | select(.pid == $ch.pid)] as $mine |
($mine | map(.tid) | unique) as $tids |
($mine | (map(.ts_ns + .dur_ns) | max) - (map(.ts_ns) | min)) as $wall |
def preempt: $host[] | select(.host_type == "switch" and .value == 0 and .pid == $ch.pid and (.tid as $t | $tids | index($t)));
# its CUDA threads' waits for a CPU after a wakeup (value: who held it, 1.7)
def runq: $host[] | select(.host_type == "wakeup" and .pid == $ch.pid and (.tid as $t | $tids | index($t)));
def outside: . as $x | ($m.anomalies // [[$a, $b]]) | all(($x.ts_ns < .[0]) or ($x.ts_ns >= .[1]));
def head($s):
  ($s | capture("^(?<op>\\w+) in PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) slowed from p50 (?<a>[0-9.]+ \\w+) to (?<b>[0-9.]+ \\w+) and p99 (?<c>[0-9.]+ \\w+) to (?<d>[0-9.]+ \\w+) \\([0-9.]+x\\) between \\+(?<s>-?[0-9.]+) s and \\+(?<e>[0-9.]+) s")) as $h |
  # the op's timed calls: the interval's figures and counts are theirs
  [$mine[] | select(.op == $h.op and timed)] as $calls |
  [$calls[] | select(inwin) | .dur_ns] as $in |
  [$calls[] | select(outside) | .dur_ns] as $out |
  check("op"; $h.op == $ch.op; $ch.op; $h.op),
  count("pid"; $ch.pid; $h.pid),
  count("calls in the interval"; ($in | length); "\($m.calls_in)"),
  count("baseline calls"; ($out | length); "\($m.calls_base)"),
  dur("baseline p50"; ($out | quant(0.5)); $h.a),
  dur("interval p50"; ($in | quant(0.5)); $h.b),
  dur("baseline p99"; ($out | quant(0.99)); $h.c),
  dur("interval p99"; ($in | quant(0.99)); $h.d),
  secs("interval start"; rel($a); $h.s),
  secs("interval end"; rel($b); $h.e);

$ch.root_cause as $s |
(
  check("top chain pattern"; $ch.pattern == $pattern; $pattern; $ch.pattern),
  (if $op != "" then check("top chain op"; $ch.op == $op; $op; $ch.op) else empty end),
  (if $culprit != "" then
     check("culprit comm"; $ch.culprit_comm == $culprit; $culprit; $ch.culprit_comm),
     ([$recs[] | select((.type == "process" and .comm == $culprit)) | .pid] +
      [$host[] | select(.other_comm == $culprit) | .other_pid] +
      [$host[] | select(.comm == $culprit) | .pid] | unique) as $ids |
     check("culprit pid is a '\($culprit)' process"; ($ids | index($ch.culprit_pid)) != null; $ids; $ch.culprit_pid)
   else empty end),
  if $pattern == "cpu-contention" and ($s | test("over the whole run")) then
    ($s | capture("^PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? preempted the CUDA threads of PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) (?<n>\\d+) times for (?<t>[0-9.]+ \\w+) off-CPU over the whole run \\(all preemptions: (?<mm>\\d+), (?<u>[0-9.]+ \\w+), (?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+)\\)")) as $p |
    [preempt | select(inwin)] as $sw |
    count("culprit pid"; $ch.culprit_pid; $p.q),
    ctrcheck($p),
    count("preemptions by the culprit"; ($sw | map(select(.other_pid == $ch.culprit_pid)) | length); $p.n),
    dur("off-CPU by the culprit"; ($sw | map(select(.other_pid == $ch.culprit_pid) | .dur_ns) | add); $p.t),
    count("all preemptions"; ($sw | length); $p.mm),
    dur("all off-CPU"; ($sw | map(.dur_ns) | add); $p.u),
    dur("wall"; $wall; $p.w),
    pct("off-CPU share of wall"; (($sw | map(.dur_ns) | add) / $wall * 100); $p.x)
  elif $pattern == "cpu-contention" then
    head($s),
    ($s | capture("while PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? (?<took>(preempted|kept) its CUDA threads .*?) off-CPU")) as $p |
    # what the culprit took: preemptions, waits after a wakeup while it
    # held the CPU (format 1.7: the wakeup's value), or both
    ($p.took | (capture("^preempted its CUDA threads (?<n>\\d+) times for (?<t>[0-9.]+ \\w+)$") |
                  .w = "0") //
               (capture("^kept its CUDA threads waiting for a CPU after (?<w>\\d+) wakeups, for (?<t>[0-9.]+ \\w+)$") |
                  .n = "0") //
               capture("^preempted its CUDA threads (?<n>\\d+) times and kept them waiting for a CPU after (?<w>\\d+) wakeups, for (?<t>[0-9.]+ \\w+)$") //
               {n: "-1", w: "-1", t: "0 ns"}) as $k |
    [preempt | select(inwin)] as $sw |
    [runq | select(inwin and .value == $ch.culprit_pid)] as $wq |
    count("culprit pid"; $ch.culprit_pid; $p.q),
    ctrcheck($p),
    count("preemptions by the culprit in the interval"; ($sw | map(select(.other_pid == $ch.culprit_pid)) | length); $k.n),
    count("waits for a CPU the culprit held in the interval"; ($wq | length); $k.w),
    dur("off-CPU by the culprit in the interval"; ($sw | map(select(.other_pid == $ch.culprit_pid) | .dur_ns) + ($wq | map(.dur_ns)) | add); $k.t),
    (($s | capture("\\(all preemptions: (?<mm>\\d+), (?<u>[0-9.]+ \\w+)\\)")) // null) as $all |
    (if $all then count("all preemptions in the interval"; ($sw | length); $all.mm),
       dur("all off-CPU in the interval"; ($sw | map(.dur_ns) | add); $all.u) else empty end)
  elif $pattern == "gpu-contention" then
    head($s),
    ($s | capture("while PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? made (?<n>\\d+) CUDA calls on the same node \\((?<k>\\d+) outside the interval\\); its own threads were preempted only (?<mm>\\d+) times \\((?<t>[0-9.]+ \\w+) off-CPU\\)")) as $p |
    [preempt | select(inwin)] as $sw |
    count("culprit pid"; $ch.culprit_pid; $p.q),
    ctrcheck($p),
    count("culprit's CUDA calls in the interval"; ([$cuda[] | select(.pid == $ch.culprit_pid and inwin)] | length); $p.n),
    count("culprit's CUDA calls outside"; ([$cuda[] | select(.pid == $ch.culprit_pid and (inwin | not))] | length); $p.k),
    count("preemptions of the victim"; ($sw | length); $p.mm),
    dur("victim off-CPU"; ($sw | map(.dur_ns) | add // 0); $p.t)
  elif $pattern == "memory-pressure" then
    head($s),
    def pages: .host_type == "page_alloc" or .host_type == "page_alloc_rest";
    [$host[] | select(pages and inwin)] as $pg |
    [$snaps[] | select(inwin)] as $sn |
    ([$snaps[] | select(.ts_ns < $a)] | last) as $before |
    def rate($xs): if ($xs | length) == 0 then 0 else ($xs | map(.value) | add) * 1e9 / ($xs | map(.dur_ns) | add) end;
    def near1($what; $exp; $text): check($what; near($exp; ($text | tonumber); 0; 0.5); $exp; $text);
    ($s | capture("(; available memory fell from (?<bf>[0-9.]+ \\w+) to (?<av>[0-9.]+ \\w+) \\((?<x>[0-9.]+)% of (?<tot>[0-9.]+ \\w+)\\)|; available memory was (?<av2>[0-9.]+ \\w+) \\((?<x2>[0-9.]+)% of (?<tot2>[0-9.]+ \\w+)\\) at its lowest)?(; tasks stalled (?<ns>\\d+) times in direct reclaim or compaction \\((?<nst>[0-9.]+ \\w+)\\))?(; memory pressure stalled tasks (?<psi>[0-9.]+)% of the time)?(; swap use grew by (?<sw>[0-9.]+ \\w+))?(; the calls stayed slow (?<rec>[0-9.]+ \\w+) after the last window of pressure)?$")) as $q |
    (if ($s | test(" allocated [0-9]+ pages/s ")) then
      ($s | capture("while PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? allocated (?<r>\\d+) pages/s \\((?<rb>[0-9.]+ \\w+)/s\\) against (?<ro>\\d+) pages/s outside the interval")) as $p |
      [$host[] | select(.host_type == "page_alloc" and .pid == ($p.q | tonumber))] as $cp |
      [$cp[] | select(inwin)] as $cin |
      [$cp[] | select((inwin | not) and .ts_ns >= $m.base_from_ns and .ts_ns < $m.base_to_ns)] as $cout |
      count("culprit pid"; $ch.culprit_pid; $p.q),
      check("culprit comm"; $p.qc == $culprit or $culprit == ""; $culprit; $p.qc),
      near1("culprit pages/s in the interval"; rate($cin); $p.r),
      size("culprit bytes/s in the interval"; rate($cin) * 4096; $p.rb),
      near1("culprit pages/s outside"; rate($cout); $p.ro),
      ctrcheck($p),
      # graded evidence: the storm's share of the available memory per
      # second (just before the interval, else the least in it)
      (if ($s | test("; likely the cause")) then
        ($s | capture("; likely the cause, though under the memory rule's edge: a rise of (?<sh>[0-9.]+)% of the (?<av>[0-9.]+ \\w+) available per second \\(certain from (?<edge>[0-9.]+)%\\), page allocations an outlier in (?<cv>[0-9.]+)% of the slow windows")) as $l |
        (if $before then $before.mem_avail else ($sn | map(.mem_avail) | min) end) as $av |
        size("available memory before the storm"; $av; $l.av),
        pct("culprit's rise, as a share of the available memory per second"; (rate($cin) - rate($cout)) * 4096 / $av * 100; $l.sh),
        check("under the edge"; ($l.sh | tonumber) < ($l.edge | tonumber); "< \($l.edge)"; $l.sh),
        pct("windows covered"; $m.coverage_mem * 100; $l.cv),
        check("likely in the metrics"; $m.likely == 1; 1; $m.likely)
      else check("certain in the metrics"; ($m.likely // 0) == 0; 0; $m.likely) end)
    else
      ($s | capture("while the host was under memory pressure(; (?<n>\\d+) pages were allocated( \\((?<k>\\d+) by PID (?<q>\\d+) \\((?<qc>[^)]*)\\)\\))?)?")) as $p |
      count("pages allocated in the interval"; ($pg | map(.value) | add // 0); ($p.n // "0")),
      (if $p.k then count("pages by the culprit"; ($pg | map(select(.pid == ($p.q | tonumber)) | .value) | add); $p.k) else empty end)
    end),
    (if $q.av then size("least available memory"; ($sn | map(.mem_avail) | min); $q.av),
       size("available memory before"; $before.mem_avail; $q.bf),
       pct("least available share"; (($sn | map(.mem_avail) | min) / ($sn[0].mem_total) * 100); $q.x)
     elif $q.av2 then size("least available memory"; ($sn | map(.mem_avail) | min); $q.av2),
       pct("least available share"; (($sn | map(.mem_avail) | min) / ($sn[0].mem_total) * 100); $q.x2)
     else empty end),
    (if $q.ns then
       [$host[] | select((.host_type == "reclaim" or .host_type == "compact") and inwin)] as $st |
       count("reclaim and compaction stalls"; ($st | length); $q.ns),
       dur("stall time"; ($st | map(.dur_ns) | add); $q.nst)
     else empty end),
    (if $q.psi then pct("memory PSI"; ($sn | map(.psi_mem_some // 0) | max); $q.psi) else empty end),
    # the slowdown's tail after the last window of pressure: the metric,
    # within the interval, and a storm's page allocations (where pages
    # were the pressure, not swap or scarcity alone) begin before it
    (if $q.rec then
      dur("stayed slow after the pressure"; $m.recovery_ns; $q.rec),
      check("the tail within the interval"; $m.recovery_ns <= $b - $a; "<= \($b - $a)"; $m.recovery_ns),
      (if ($pg | length) > 0 then
        check("page allocations before the tail"; ([$pg[] | select(.ts_ns < $b - $m.recovery_ns)] | length) > 0; "> 0";
              ([$pg[] | select(.ts_ns < $b - $m.recovery_ns)] | length))
       else empty end)
    else empty end)
  elif $pattern == "disk-stall" then
    # the job: the process and its descendants (process records' ppid)
    ([$recs[] | select(.type == "process")] | map({key: "\(.pid)", value: .ppid}) | from_entries) as $pp |
    def injob($p): $p as $x | [limit(8; $x | recurse(($pp["\(.)"] // 0) | select(. != 0)))] | index($ch.pid) != null;
    ($m.base_from_ns) as $bf | ($m.base_to_ns) as $bt |
    def base: .ts_ns >= $bf and .ts_ns < $bt and (inwin | not);
    ($b - $a) as $lin | (($bt - $bf) - ($b - $a)) as $lout |
    [$host[] | select(.host_type == "iowait" and injob(.pid))] as $iow |
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) made (?<ri>[0-9.]+) CUDA calls/s between \\+(?<s>-?[0-9.]+) s and \\+(?<e>[0-9.]+) s against (?<ro>[0-9.]+)/s outside that interval while the job's processes were blocked on I/O for (?<io>[0-9.]+ \\w+) \\((?<fi>[0-9.]+)% of the interval, against (?<fo>[0-9.]+)% outside it\\)(; (?<disk>[^ ]+) \\(device (?<maj>\\d+):(?<min>\\d+)\\) served (?<n>\\d+) requests in the interval at p50 (?<p50i>[0-9.]+ \\w+) and p99 (?<p99i>[0-9.]+ \\w+), against p50 (?<p50o>[0-9.]+ \\w+) and p99 (?<p99o>[0-9.]+ \\w+) outside it)?(; PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? moved (?<sh>[0-9.]+)% of the device's (?<db>[0-9.]+ \\w+) in the interval \\((?<cr>[0-9.]+ \\w+)/s, against (?<co>[0-9.]+ \\w+)/s outside it\\))?$")) as $p |
    # call rates come from the report's analysis windows: within 10%
    def rate($what; $exp; $text): check($what; near($exp; ($text | tonumber); 0.1; 1); $exp; $text);
    count("pid"; $ch.pid; $p.pid),
    secs("interval start"; rel($a); $p.s),
    secs("interval end"; rel($b); $p.e),
    rate("CUDA calls/s in the interval"; ([$mine[] | select(inwin)] | length) * 1e9 / $lin; $p.ri),
    rate("CUDA calls/s outside"; ([$mine[] | select(base)] | length) * 1e9 / $lout; $p.ro),
    dur("the job's I/O wait in the interval"; ([$iow[] | select(inwin) | .value] | add); $p.io),
    pct("I/O wait share of the interval"; ([$iow[] | select(inwin) | .value] | add) * 100 / $lin; $p.fi),
    pct("I/O wait share outside"; (([$iow[] | select(base) | .value] | add) // 0) * 100 / $lout; $p.fo),
    (if $p.disk then
      [$recs[] | select(.type == "blkio" and .major == ($p.maj | tonumber) and .minor == ($p.min | tonumber)) | .ts_ns = .ts_start] as $dv |
      [$dv[] | select(inwin)] as $din | [$dv[] | select(base)] as $dout |
      def hsum: reduce .[] as $r ([range(24) | 0]; [range(24) as $i | .[$i] + ($r.hist[$i] // 0)]);
      def bq($h; $q; $mx): ($h | add) as $t | (if $q * $t <= 1 then 1 else ($q * $t | ceil) end) as $rk |
        first(range(24) as $i | select(($h[0:($i + 1)] | add) >= $rk) | $i) as $k | ([pow(2; $k + 11), $mx] | min);
      ($din | hsum) as $hi | ($dout | hsum) as $ho |
      ($din | map(.lat_max_ns) | max) as $mi | ($dout | map(.lat_max_ns) | max) as $mo |
      check("the job's device"; ([$din[] | select(injob(.pid))] | length) > 0; "requests of the job on \($p.disk)"; 0),
      check("device name"; ($din[0].disk == $p.disk); $din[0].disk; $p.disk),
      count("device requests in the interval"; ($din | map(.ios) | add); $p.n),
      dur("device p50 in the interval"; bq($hi; 0.5; $mi); $p.p50i),
      dur("device p99 in the interval"; bq($hi; 0.99; $mi); $p.p99i),
      dur("device p50 outside"; bq($ho; 0.5; $mo); $p.p50o),
      dur("device p99 outside"; bq($ho; 0.99; $mo); $p.p99o),
      (if $p.q then
        ($p.q | tonumber) as $q |
        ($din | map(.bytes) | add) as $dbytes |
        ([$din[] | select(.pid == $q) | .bytes] | add) as $qin |
        (([$dout[] | select(.pid == $q) | .bytes] | add) // 0) as $qout |
        count("culprit pid"; $ch.culprit_pid; $p.q),
        check("culprit is no process of the job"; (injob($q) | not); "outside the job"; $q),
        check("culprit comm"; $p.qc == $culprit or $culprit == ""; $culprit; $p.qc),
        pct("culprit share of the device's bytes"; $qin * 100 / $dbytes; $p.sh),
        size("device bytes in the interval"; $dbytes; $p.db),
        size("culprit bytes/s in the interval"; $qin * 1e9 / $lin; $p.cr),
        size("culprit bytes/s outside"; $qout * 1e9 / $lout; $p.co),
        ctrcheck($p)
      else empty end)
    else empty end)
  elif $pattern == "net-retransmits" and ($s | test("stalled at random times") | not) then
    head($s),
    # a retrans aggregate is in the interval when its window starts in
    # [net_in_from_ns, net_in_to_ns), the baseline the others of
    # [base_from_ns, base_to_ns) (the engine's windows, in the metrics)
    [$recs[] | select(.type == "retrans")] as $rt |
    def netin: .ts_start >= $m.net_in_from_ns and .ts_start < $m.net_in_to_ns;
    def netout: (netin | not) and .ts_start >= $m.base_from_ns and .ts_start < $m.base_to_ns;
    def ep: if .family == 6 then "[\(.saddr)]:\(.sport) > [\(.daddr)]:\(.dport)" else "\(.saddr):\(.sport) > \(.daddr):\(.dport)" end;
    (($m.net_in_to_ns - $m.net_in_from_ns) / 1e9) as $lin |
    (($m.base_to_ns - $m.base_from_ns) / 1e9 - $lin) as $lout |
    ($s | capture("while TCP flow (?<f>\\S+ > \\S+) of PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? retransmitted (?<n>\\d+) segments in the interval against (?<k>\\d+) outside it; the node retransmitted (?<an>\\d+) TCP segments in the interval \\((?<ar>[0-9.]+)/s\\) against (?<ak>\\d+) outside it \\((?<ao>[0-9.]+)/s\\)")) as $p |
    [$rt[] | select(.family != 0 and .pid == ($p.q | tonumber) and ep == $p.f)] as $fl |
    def near1($what; $exp; $text): check($what; near($exp; ($text | tonumber); 0; 0.051); $exp; $text);
    count("culprit pid"; $ch.culprit_pid; $p.q),
    check("culprit comm"; $p.qc == $culprit or $culprit == ""; $culprit; $p.qc),
    ctrcheck($p),
    count("flow's retransmits in the interval"; ($fl | map(select(netin) | .count) | add // 0); $p.n),
    count("flow's retransmits outside"; ($fl | map(select(netout) | .count) | add // 0); $p.k),
    count("node's retransmits in the interval"; ([$rt[] | select(netin) | .count] | add // 0); $p.an),
    count("node's retransmits outside"; ([$rt[] | select(netout) | .count] | add // 0); $p.ak),
    near1("node's retransmits/s in the interval"; (([$rt[] | select(netin) | .count] | add // 0) / $lin); $p.ar),
    near1("node's retransmits/s outside"; (if $lout > 0 then ([$rt[] | select(netout) | .count] | add // 0) / $lout else 0 end); $p.ao),
    # the slowdown's tail after the last retransmitting window in the
    # interval (its end: start + duration), to two windows
    (($s | capture("; the calls stayed slow (?<r>[0-9.]+ \\w+) after the last retransmitting window")) // null) as $rc |
    (if $rc then
      ([$rt[] | select(netin) | .ts_start + .dur_ns] | max) as $le |
      check("loss recovery after the last retransmitting window"; near($m.net_in_to_ns - $le; ($rc.r | dn); 0.05; 2 * $m.window_ns); $m.net_in_to_ns - $le; $rc.r)
    else empty end),
    (($s | capture("; the process moved (?<b>[0-9.]+ \\w+) over TCP in it$")) // null) as $tb |
    (if $tb then size("the job's TCP bytes in the interval"; ([$recs[] | select(.type == "sockio" and .pid == $ch.pid and netin) | .tx_bytes + .rx_bytes] | add // 0); $tb.b) else empty end)
  elif $pattern == "gpu-slow" then
    head($s),
    ($s | capture("with no host cause: its CUDA threads were preempted (?<n>\\d+) times \\((?<t>[0-9.]+ \\w+) off-CPU, [^)]*\\), other processes made (?<k>\\d+) CUDA calls, (?<pg>\\d+) pages were allocated")) as $p |
    [preempt | select(inwin)] as $sw |
    count("victim preemptions"; ($sw | length); $p.n),
    dur("victim off-CPU"; ($sw | map(.dur_ns) | add // 0); $p.t),
    count("other processes' CUDA calls"; ([$cuda[] | select(.pid != $ch.pid and inwin)] | length); $p.k),
    count("pages allocated"; ([$host[] | select((.host_type == "page_alloc" or .host_type == "page_alloc_rest") and inwin) | .value] | add // 0); $p.pg)
  elif $pattern == "cold-start" then
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) lost (?<l>[0-9.]+ \\w+) to cold start: (?<list>.*) - CUDA context creation.*\\((?<k>\\d+) slow calls, (?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+)\\)")) as $p |
    [$p.list | scan("(the first|the first calls of) (\\w+) took ([0-9.]+ \\w+) \\(median ([0-9.]+ \\w+) over (\\d+) calls\\)")] as $items |
    count("pid"; $ch.pid; $p.pid),
    dur("wall"; $wall; $p.w),
    ($items[] as $it |
      [$mine[] | select(.op == $it[1] and timed)] as $calls |
      dur("first \($it[1])"; ($calls | min_by(.ts_ns) | .dur_ns); $it[2]),
      dur("median \($it[1])"; ($calls | map(.dur_ns) | quant(0.5)); $it[3]),
      count("calls of \($it[1])"; ([$mine[] | select(.op == $it[1])] | length); $it[4])),
    (if ($items | all(.[0] == "the first")) and ($items | length) == ($p.k | tonumber) then
       dur("cold-start cost"; ($items | map(. as $it | [$mine[] | select(.op == $it[1] and timed)] as $calls |
            ($calls | min_by(.ts_ns) | .dur_ns) - ($calls | map(.dur_ns) | quant(0.5))) | add); $p.l)
     else empty end)
  elif $pattern == "memcpy-bound" then
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) spent (?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+) in memory copies: (?<n>\\d+) calls took (?<t>[0-9.]+ \\w+) moving (?<by>[0-9.]+ \\w+) \\(mostly [a-z-]+\\) at (?<rt>[0-9.]+ \\w+)/s, more than its (?<sy>[0-9.]+ \\w+) in synchronization and (?<o>[0-9.]+ \\w+) in all other")) as $p |
    ["cudaMemcpy", "cudaMemcpyAsync", "cuMemcpy", "cuMemcpyAsync", "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync"] as $cp |
    ["cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cuCtxSynchronize", "cuStreamSynchronize"] as $sy |
    [$mine[] | select(.layer == $m.layer)] as $lay |
    [$lay[] | select(.op as $o | $cp | index($o))] as $copies |
    count("copy calls"; ($copies | length); $p.n),
    dur("copy time"; ($copies | map(.dur_ns) | add); $p.t),
    size("bytes copied"; ($copies | map(.bytes) | add); $p.by),
    dur("wall"; $wall; $p.w),
    pct("copy share of wall"; (($copies | map(.dur_ns) | add) / $wall * 100); $p.x),
    dur("synchronization time"; ([$lay[] | select(.op as $o | $sy | index($o))] | optime); $p.sy),
    dur("other calls' time"; ([$lay[] | select(.op as $o | ($sy + $cp) | index($o) | not)] | optime); $p.o)
  elif $pattern == "pageable-copy" or $pattern == "hidden-sync" then
    # the host side of each copy from the pinned ranges recorded before it
    # (SPEC §5.4, format 1.5), in log order; memory.c's rules, written anew
    def hex: ltrimstr("0x") | explode | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 elif $c >= 65 then $c - 55 else $c - 48 end));
    def isin($l): . as $o | $l | index($o) != null;
    ["cudaMallocHost", "cudaHostAlloc", "cudaHostRegister", "cuMemHostAlloc", "cuMemAllocHost", "cuMemHostRegister"] as $pinops |
    ["cudaFreeHost", "cudaHostUnregister", "cuMemFreeHost", "cuMemHostUnregister"] as $unpinops |
    ["cudaMemcpyAsync", "cuMemcpyAsync", "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync"] as $async |
    ["cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD"] as $syncdata |
    ["cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cuCtxSynchronize", "cuStreamSynchronize"] as $sy |
    def pinned($pins; $a): any($pins[]; $a >= .[0] and $a - .[0] < .[1]);
    (reduce $mine[] as $r ({pins: [], calls: []};
      if ($r.op | isin($pinops)) then
        (if $r.ret == 0 and ($r.flags % 2) == 0 and $r.handle != "0x0" then
           ($r.handle | hex) as $b | .pins = ([.pins[] | select(.[0] != $b)] + [[$b, (if $r.bytes > 0 then $r.bytes else 1 end)]])
         else . end)
      elif ($r.op | isin($unpinops)) then
        ($r.handle | hex) as $b | .pins = [.pins[] | select(.[0] != $b)]
      elif ($r.op | isin($async)) or ($r.op | isin($syncdata)) then
        .pins as $pins |
        (if ($r.op | isin($async)) then
           (if ([1, 2, 4] | index($r.kind)) == null then null
            elif (($r.args // []) | length) == 0 then "unknown"
            elif $r.kind == 1 then (if pinned($pins; $r.args[0] | hex) then "pinned" else "pageable" end)
            elif $r.kind == 2 then (if pinned($pins; $r.handle | hex) then "pinned" else "pageable" end)
            elif pinned($pins; $r.handle | hex) or pinned($pins; $r.args[0] | hex) then "pinned"
            else "unknown" end)
         else null end) as $cls |
        ((($r.op | isin($syncdata)) or (($r.op | isin($async)) and $r.kind == 2)) and $r.bytes <= 4096 and $r.dur_ns >= 50000) as $waited |
        .calls += [{op: $r.op, layer: $r.layer, dur: $r.dur_ns, bytes: $r.bytes, cls: $cls, waited: $waited}]
      else . end)) as $mem |
    if $pattern == "pageable-copy" then
      ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) made (?<n>\\d+) async copies from pageable host memory that blocked it: they moved (?<b>[0-9.]+ \\w+) in (?<t>[0-9.]+ \\w+), (?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+), the host waiting for each transfer \\(of its (?<all>\\d+) async copies (?<pin>\\d+) had a pinned host side, (?<pg>\\d+) a pageable one, (?<unk>\\d+) an unknown one\\)")) as $p |
      (if any($mem.calls[]; (.op | isin($async)) and .layer == "runtime") then "runtime" else "driver" end) as $lay |
      [$mem.calls[] | select((.op | isin($async)) and .layer == $lay and .cls != null)] as $ac |
      [$ac[] | select(.cls == "pageable" and .dur >= 50000 and (.waited | not))] as $blk |
      count("pid"; $ch.pid; $p.pid),
      count("blocking pageable copies"; ($blk | length); $p.n),
      size("their bytes"; ($blk | map(.bytes) | add); $p.b),
      dur("their time"; ($blk | map(.dur) | add); $p.t),
      dur("wall"; $wall; $p.w),
      pct("share of wall"; (($blk | map(.dur) | add) / $wall * 100); $p.x),
      count("async copies"; ($ac | length); $p.all),
      count("pinned host side"; ([$ac[] | select(.cls == "pinned")] | length); $p.pin),
      count("pageable host side"; ([$ac[] | select(.cls == "pageable")] | length); $p.pg),
      count("unknown host side"; ([$ac[] | select(.cls == "unknown")] | length); $p.unk)
    else
      ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) waited for the GPU in (?<n>\\d+) small copies and memsets \\((?<lim>[0-9.]+ \\w+) or less each, (?<b>[0-9.]+ \\w+) in all\\): (?<t>[0-9.]+ \\w+), (?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+); (?<tn>\\d+) of them were (?<top>\\w+) calls \\((?<tt>[0-9.]+ \\w+)\\); besides these it made (?<sn>\\d+) synchronize calls \\((?<st>[0-9.]+ \\w+)\\)")) as $p |
      (if any($mem.calls[]; .waited and .layer == "runtime") then "runtime" else "driver" end) as $lay |
      [$mem.calls[] | select(.waited and .layer == $lay)] as $w |
      [$w[] | select(.op == $p.top)] as $wt |
      [$mine[] | select(.op | isin($sy))] as $syncs |
      count("pid"; $ch.pid; $p.pid),
      count("small calls that waited"; ($w | length); $p.n),
      size("their bytes"; ($w | map(.bytes) | add); $p.b),
      dur("their time"; ($w | map(.dur) | add); $p.t),
      dur("wall"; $wall; $p.w),
      pct("share of wall"; (($w | map(.dur) | add) / $wall * 100); $p.x),
      check("top op is the chain's"; $p.top == $ch.op; $ch.op; $p.top),
      count("calls of the top op"; ($wt | length); $p.tn),
      dur("time of the top op"; ($wt | map(.dur) | add); $p.tt),
      count("synchronize calls"; ($syncs | length); $p.sn),
      dur("synchronize time"; ($syncs | map(.dur_ns) | add // 0); $p.st)
    end
  elif $pattern == "gpu-memory-leak" then
    # the device allocations not yet freed, replayed in log order (memory.c's ledger, anew)
    ["cudaMalloc", "cuMemAlloc", "cudaMallocAsync", "cuMemAllocAsync", "cudaMallocFromPoolAsync", "cuMemAllocFromPoolAsync"] as $allocs |
    ["cudaFree", "cuMemFree", "cudaFreeAsync", "cuMemFreeAsync"] as $frees |
    (reduce $mine[] as $r ({live: {}, out: 0, peak: 0, oom: null};
      ($r.ret == 0 and ($r.flags % 2) == 0) as $ok |
      if ($allocs | index($r.op)) != null then
        if $ok and $r.handle != "0x0" then
          (.live[$r.handle].bytes // 0) as $old |
          .out = .out - $old + $r.bytes |
          .live[$r.handle] = {ts: $r.ts_ns, bytes: $r.bytes, path: "\($r.stack_id)/\($r.pystack_id)/\($r.op)", op: $r.op} |
          .peak = ([.peak, .out] | max)
        elif $r.ret == 2 and .oom == null then
          .oom = {ts: $r.ts_ns, bytes: $r.bytes, op: $r.op, out: .out, n: (.live | length)}
        else . end
      elif ($frees | index($r.op)) != null and $ok and .live[$r.handle] != null then
        .out -= .live[$r.handle].bytes | del(.live[$r.handle])
      else . end)) as $led |
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) leaked device memory: (?<n>\\d+) allocations made between \\+(?<a>[0-9.]+) s and \\+(?<b>[0-9.]+) s \\((?<kb>[0-9.]+ \\w+), (?<rate>[0-9.]+ \\w+)/s\\) were never freed, (?<tn>\\d+) of them \\((?<tb>[0-9.]+ \\w+)\\) from one call path of (?<top>\\w+) \\((?<np>\\d+) paths in all\\); it held (?<out>[0-9.]+ \\w+) at the end of the recording, (?<peak>[0-9.]+ \\w+) at most(; at \\+(?<ot>[0-9.]+) s (?<oop>\\w+) failed with out of memory asking for (?<ob>[0-9.]+ \\w+) while (?<oout>[0-9.]+ \\w+) was outstanding in (?<olive>\\d+) allocations)?")) as $p |
    [$led.live[] | select(.ts >= $a)] as $kept |
    ($kept | group_by(.path) | map({n: length, bytes: (map(.bytes) | add), op: .[0].op}) | sort_by([.bytes, .n]) | last) as $tp |
    count("pid"; $ch.pid; $p.pid),
    secs("leak window start"; rel($a); $p.a),
    secs("leak window end"; rel($b); $p.b),
    count("allocations never freed"; ($kept | length); $p.n),
    size("their bytes"; ($kept | map(.bytes) | add); $p.kb),
    size("bytes per second"; (($kept | map(.bytes) | add) / (($b - $a) / 1e9)); $p.rate),
    count("call paths"; ($kept | group_by(.path) | length); $p.np),
    count("allocations of the top path"; $tp.n; $p.tn),
    size("bytes of the top path"; $tp.bytes; $p.tb),
    check("top path's op"; $tp.op == $p.top; $tp.op; $p.top),
    size("outstanding at the end"; $led.out; $p.out),
    size("outstanding at most"; $led.peak; $p.peak),
    (if $p.ot then
       check("an out of memory was recorded"; $led.oom != null; "an allocation with error 2"; $led.oom),
       secs("out of memory at"; rel($led.oom.ts); $p.ot),
       check("failed op"; $led.oom.op == $p.oop; $led.oom.op; $p.oop),
       size("bytes asked for"; $led.oom.bytes; $p.ob),
       size("outstanding then"; $led.oom.out; $p.oout),
       count("allocations held then"; $led.oom.n; $p.olive)
     else empty end)
  elif $pattern == "launch-bound" then
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) is launch-bound: (?<n>\\d+) kernel launches took (?<t>[0-9.]+ \\w+), (?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+) \\((?<r>[0-9.]+) launches/s, (?<a>[0-9.]+ \\w+) each on average(, (?<k>[0-9.]+) kernels per step over (?<st>\\d+) steps)?\\), while its synchronizes took (?<sy>[0-9.]+ \\w+) \\((?<y>[0-9.]+)%; its CUDA threads waited (?<rq>[0-9.]+ \\w+) for a CPU after waking\\)")) as $p |
    ["cudaLaunchKernel", "cuLaunchKernel", "cuLaunchKernelEx"] as $lo |
    ["cudaStreamSynchronize", "cudaDeviceSynchronize", "cudaEventSynchronize", "cuCtxSynchronize", "cuStreamSynchronize"] as $sy |
    [$mine[] | select(.op as $o | $lo | index($o))] as $l |
    # launches recorded at entry stand in at the mean of their op's timed ones
    ($l | optime) as $lt |
    ([$mine[] | select(.op as $o | $sy | index($o))] | optime) as $st |
    count("launches"; ($l | length); $p.n),
    dur("launch time"; $lt; $p.t),
    dur("wall"; $wall; $p.w),
    pct("launch share of wall"; ($lt / $wall * 100); $p.x),
    check("launch rate"; near(($l | length) / ($wall / 1e9); ($p.r | tonumber); 0; 0.51); ($l | length) / ($wall / 1e9); $p.r),
    dur("mean launch"; ($lt / ($l | length)); $p.a),
    dur("synchronize time"; $st; $p.sy),
    pct("synchronize share of wall"; ($st / $wall * 100); $p.y),
    dur("run-queue waits after wakeups"; ([$host[] | select(.host_type == "wakeup" and .pid == $ch.pid and (.tid as $t | $tids | index($t))) | .dur_ns] | add // 0); $p.rq),
    (if $p.k then
       ($c | map(select(.type == "steps" and .pid == $ch.pid)) | first) as $steps |
       count("steps"; $steps.steps; $p.st),
       check("kernels per step"; near(([$l[] | select(.ts_ns >= $steps.start_ns and .ts_ns < $steps.end_ns)] | length) / $steps.steps; ($p.k | tonumber); 0; 0.51);
             ([$l[] | select(.ts_ns >= $steps.start_ns and .ts_ns < $steps.end_ns)] | length) / $steps.steps; $p.k)
     else empty end)
  elif $pattern == "periodic-spike" then
    ($s | capture("^(?<op>\\w+) in PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) stalls every (?<g>[0-9.]+ \\w+): (?<n>\\d+) calls took (?<d>[0-9.]+ \\w+) \\(median\\) against a median of (?<md>[0-9.]+ \\w+) for all (?<k>\\d+) calls, costing (?<l>[0-9.]+ \\w+) \\((?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+)\\)")) as $p |
    [$mine[] | select(.op == $p.op)] as $all |
    [$all[] | select(timed)] as $calls |
    [$calls[] | select(.dur_ns > $m.spike_threshold_ns and inwin and outside)] as $sp |
    ($sp | sort_by(.ts_ns)) as $sps |
    check("op"; $p.op == $ch.op; $ch.op; $p.op),
    count("spikes above \($m.spike_threshold_ns) ns"; ($sp | length); $p.n),
    dur("median spike"; ($sp | map(.dur_ns) | quant(0.5)); $p.d),
    dur("median of all calls"; ($calls | map(.dur_ns) | quant(0.5)); $p.md),
    count("calls"; ($all | length); $p.k),
    dur("period (median gap)"; ([range(1; $sps | length) as $i | $sps[$i].ts_ns - $sps[$i - 1].ts_ns] | quant(0.5)); $p.g),
    dur("cost"; (($sp | map(.dur_ns) | add) - ($sp | length) * ($calls | map(.dur_ns) | quant(0.5))); $p.l),
    dur("wall"; $wall; $p.w),
    # the spread's test: in the middle of the empty gap below the spikes
    # (from the threshold), where the log-normal through the quartiles
    # must predict significantly fewer calls than there are spikes
    ((($m.spike_threshold_ns * ($sp | map(.dur_ns) | min)) | sqrt | floor) as $at |
     fit_above($m; $m.expected_at_ns) as $e |
     check("test point"; near($at; $m.expected_at_ns; 0; 2); $at; $m.expected_at_ns),
     check("calls predicted above it"; near($e; $m.expected_above_threshold; 0.001; 1e-9); $e; $m.expected_above_threshold),
     check("more spikes than predicted"; ($sp | length) > $e; "> \($e)"; ($sp | length)))
  elif $pattern == "isolated-stall" or $pattern == "net-retransmits" then
    ($s | capture("^(?<op>\\w+) in PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) stalled at random times in (?<n>\\d+) of (?<k>\\d+) calls(?<freq> \\(more than 1 in 20: too many to be isolated, and no interval stands out\\))?: they took (?<d>[0-9.]+ \\w+) \\(median\\) against a median of (?<md>[0-9.]+ \\w+) for all calls, costing (?<l>[0-9.]+ \\w+) \\((?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+)\\)")) as $p |
    [$mine[] | select(.op == $p.op)] as $all |
    [$all[] | select(timed)] as $calls |
    [$calls[] | select(.dur_ns > $m.stall_threshold_ns and inwin and outside)] as $st |
    ($calls | map(.dur_ns) | quant(0.5)) as $med |
    def tick($ts): (($ts - $t0) / $m.window_ns | floor);
    ([$st[] | range(tick(.ts_ns); tick(.ts_ns + .dur_ns) + 1)] | unique) as $wins |
    def install: tick(.ts_ns) as $k | $wins | index($k) != null;
    [preempt | select(install)] as $sw |
    check("op"; $p.op == $ch.op; $ch.op; $p.op),
    count("stalls above \($m.stall_threshold_ns) ns"; ($st | length); $p.n),
    count("calls"; ($all | length); $p.k),
    dur("median stall"; ($st | map(.dur_ns) | quant(0.5)); $p.d),
    dur("median of all calls"; $med; $p.md),
    # the time above the median, less what the log-normal fit (its mu and
    # sigma from the metrics' histogram quartiles) puts above the threshold:
    # n (E[X; X > c] - median P(X > c)) over the calls considered, with the
    # engine's median (a small difference of two near numbers)
    (($st | map(.dur_ns) | add) - ($st | length) * $med) as $above |
    ($m.fit_median_ns | log) as $mu | ($m.stall_threshold_ns | log) as $lc |
    fit_sigma($m) as $sg |
    ($m.calls_considered * ((($mu + $sg * $sg / 2) | exp) * 0.5 * ((($lc - $mu - $sg * $sg) / ($sg * (2 | sqrt))) | erfc)
       - $m.median_ns * 0.5 * ((($lc - $mu) / ($sg * (2 | sqrt))) | erfc))) as $spread |
    ([0, $above - ([0, $spread] | max)] | max) as $cost |
    ($s | capture("the cost is their (?<a>[0-9.]+ \\w+) above the median less the (?<b>[0-9.]+ \\w+) the spread puts there")) as $q |
    dur("cost"; $cost; $p.l),
    dur("time above the median"; $above; $q.a),
    (if $spread > 1000 then dur("time the spread puts above the median"; $spread; $q.b) else empty end),
    dur("wall"; $wall; $p.w),
    pct("cost share of wall"; ($cost / $wall * 100); $p.x),
    # the significance test: a bimodal group's point is the middle of its
    # break (the threshold below it, the slowest stall's floor above), a
    # heavy tail's its threshold; the fit predicts n P(X > point) there
    (if $m.shape == "bimodal" then (($m.stall_threshold_ns * ($st | map(.dur_ns) | min)) | sqrt | floor)
     else $m.stall_threshold_ns end) as $at |
    ($s | capture("(?<k>\\d+) calls above (?<at>[0-9.]+ \\w+) where the spread of the other calls predicts (?<e>[0-9.e+-]+)")) as $t |
    check("test point"; near($at; $m.expected_at_ns; 0; 2); $at; $m.expected_at_ns),
    dur("test point in the text"; $m.expected_at_ns; $t.at),
    check("calls predicted above it"; near(fit_above($m; $m.expected_at_ns); ($t.e | tonumber); 0.01; 1e-9);
      fit_above($m; $m.expected_at_ns); $t.e),
    count("stall windows"; ($wins | length); "\($m.stall_windows)"),
    (($s | capture(" - GPU side: in the stalls' windows its CUDA threads were preempted (?<pn>\\d+) times \\((?<pt>[0-9.]+ \\w+) off-CPU\\) and waited [0-9.]+ \\w+ for a CPU, other processes made (?<o>\\d+) CUDA calls")) // null) as $g |
    (($s | capture(" - host side: PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? preempted its CUDA threads (?<qn>\\d+) times for (?<qt>[0-9.]+ \\w+) off-CPU in the stalls' windows \\(all preemptions there: (?<pn>\\d+), (?<pt>[0-9.]+ \\w+)\\)")) // null) as $h |
    (if $g then
       check("side"; $m.side == "GPU"; "GPU"; $m.side),
       count("preemptions in the stalls' windows"; ($sw | length); $g.pn),
       dur("off-CPU in the stalls' windows"; ($sw | map(.dur_ns) | add // 0); $g.pt),
       count("other processes' CUDA calls there"; ([$cuda[] | select(.pid != $ch.pid and install)] | length); $g.o)
     elif $h then
       check("side"; $m.side == "host"; "host"; $m.side),
       count("culprit pid"; $ch.culprit_pid; $h.q),
       ctrcheck($h),
       count("preemptions by the culprit there"; ($sw | map(select(.other_pid == $ch.culprit_pid)) | length); $h.qn),
       dur("off-CPU by the culprit there"; ($sw | map(select(.other_pid == $ch.culprit_pid) | .dur_ns) | add); $h.qt),
       count("all preemptions there"; ($sw | length); $h.pn),
       dur("all off-CPU there"; ($sw | map(.dur_ns) | add); $h.pt)
     else empty end),
    # the network's stalls (a net-retransmits chain of stalls): a retrans
    # aggregate is around them when a stall's window lies from the window
    # it starts in through the longest aggregate starting there (in
    # windows, rounded up); the rest
    # are those of the process's windows [base_from_ns, base_to_ns)
    (if ($s | test(" - network: ")) then
      [$recs[] | select(.type == "retrans")] as $rt |
      ($rt | group_by(tick(.ts_start)) | map({key: "\(tick(.[0].ts_start))",
        value: ((map(.dur_ns) | max) / $m.window_ns | ceil | if . < 1 then 1 else . end)}) | from_entries) as $reach |
      def nin: tick(.ts_start) as $k | $reach["\($k)"] as $r | any($wins[]; . >= $k and . < $k + $r);
      def nbase: tick(.ts_start) >= tick($m.base_from_ns) and tick(.ts_start) < tick($m.base_to_ns);
      def ep: if .family == 6 then "[\(.saddr)]:\(.sport) > [\(.daddr)]:\(.dport)" else "\(.saddr):\(.sport) > \(.daddr):\(.dport)" end;
      ($s | capture(" - network: the node's TCP retransmissions were an outlier around [0-9.]+% of the stalls, (?<an>\\d+) segments in the retransmit aggregates around them against (?<ak>\\d+) in the rest of the run(; TCP flow (?<f>\\S+ > \\S+) of PID (?<q>\\d+) \\((?<qc>[^)]*)\\)( in (?<ctr>[^,]+(, container [0-9a-f]+)?),)? retransmitted (?<n>\\d+) segments around them against (?<k>\\d+) elsewhere)?; the process moved (?<b>[0-9.]+ \\w+) over TCP")) as $p |
      check("side"; $m.side == "network"; "network"; $m.side),
      count("node's retransmits around the stalls"; ([$rt[] | select(nbase and nin) | .count] | add // 0); $p.an),
      count("node's retransmits in the rest of the run"; ([$rt[] | select(nbase and (nin | not)) | .count] | add // 0); $p.ak),
      (if $p.f then
         [$rt[] | select(.family != 0 and .pid == ($p.q | tonumber) and ep == $p.f)] as $fl |
         count("culprit pid"; $ch.culprit_pid; $p.q),
         ctrcheck($p),
         count("flow's retransmits around the stalls"; ($fl | map(select(nbase and nin) | .count) | add // 0); $p.n),
         count("flow's retransmits elsewhere"; ($fl | map(select(nbase and (nin | not)) | .count) | add // 0); $p.k)
       else empty end),
      size("the job's TCP bytes"; ([$recs[] | select(.type == "sockio" and .pid == $ch.pid and nbase) | .tx_bytes + .rx_bytes] | add // 0); $p.b)
    else empty end)
  elif $pattern == "graph-recapture" then
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) re-captured CUDA graphs after it started launching them: (?<n>\\d+) captures and (?<mm>\\d+) cudaGraphInstantiate calls cost (?<l>[0-9.]+ \\w+) \\(instantiation (?<i>[0-9.]+ \\w+), (?<x>[0-9.]+)% of its (?<w>[0-9.]+ \\w+)\\)")) as $p |
    ($mine | map(select(.op == "cudaGraphLaunch") | .ts_ns) | min) as $fl |
    [$mine[] | select((.op == "cudaGraphInstantiate" or .op == "cudaGraphInstantiateWithFlags") and .ts_ns > $fl)] as $inst |
    ($mine | map(select(.op == "cudaStreamBeginCapture" or .op == "cudaStreamEndCapture")) | sort_by(.ts_ns)) as $ce |
    [range(0; $ce | length) as $i | $ce[$i] | select(.op == "cudaStreamBeginCapture" and .ts_ns > $fl) as $bg |
      ($ce[$i + 1:] | map(select(.op == "cudaStreamEndCapture" and .stream == $bg.stream)) | first) as $en |
      ($en.ts_ns + $en.dur_ns - $bg.ts_ns)] as $regions |
    count("re-captures"; ($regions | length); $p.n),
    count("re-instantiations"; ($inst | length); $p.mm),
    dur("instantiation time"; ($inst | map(.dur_ns) | add); $p.i),
    dur("re-capture cost"; (($inst | map(.dur_ns) | add) + ($regions | add)); $p.l),
    dur("wall"; $wall; $p.w)
  elif $pattern == "capture-warmup" then
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) captured a CUDA graph (in its first CUDA call|(?<since>[0-9.]+ \\w+) after its first CUDA call) with no eager warm-up launch before it: (cudaStreamEndCapture failed with error (?<e>-?\\d+) \\([^)]*\\)|the capture ended early) after (?<t>[0-9.]+ \\w+), with (?<n>\\d+) kernel launches captured")) as $p |
    ($mine | sort_by(.ts_ns)) as $seq |
    ($seq | map(select(.op == "cudaStreamBeginCapture")) | first) as $bg |
    ($seq | map(select(.op == "cudaStreamEndCapture" and .ts_ns > $bg.ts_ns)) | first) as $en |
    count("eager launches before the capture"; 0; ([$seq[] | select((.op == "cudaLaunchKernel" or .op == "cuLaunchKernel") and .ts_ns < $bg.ts_ns)] | length | tostring)),
    (if $p.e then count("EndCapture return code"; $en.ret; $p.e) else empty end),
    dur("capture length"; ($en.ts_ns + $en.dur_ns - $bg.ts_ns); $p.t),
    count("launches captured"; ([$seq[] | select(.op == "cudaLaunchKernel" and .ts_ns > $bg.ts_ns and .ts_ns < $en.ts_ns)] | length); $p.n),
    (if $p.since then dur("since the first call"; ($bg.ts_ns - ($seq[0].ts_ns)); $p.since) else
       check("capture is the first call"; $seq[0].op == "cudaStreamBeginCapture"; "cudaStreamBeginCapture"; $seq[0].op) end)
  elif $pattern == "oom" then
    ($s | capture("^The kernel OOM killer killed PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) at \\+(?<at>[0-9.]+) s during its GPU work(; (?<nr>\\d+) of its CUDA calls never returned)?(; its memory cgroup( \\((?<ctr>[^)]*)\\))? had reached its limit of (?<lim>[0-9.]+ \\w+) \\(usage (?<use>[0-9.]+ \\w+) at the kill\\)(, while the host still had (?<hx>[0-9.]+)% of its memory available \\((?<hav>[0-9.]+ \\w+)\\): the limit ran out, not the host)?)?(; the least memory available before it was (?<x>[0-9.]+)% \\((?<av>[0-9.]+ \\w+) of (?<tot>[0-9.]+ \\w+)\\))?(; a new (?<rc>[^ ]+) \\(PID (?<rp>\\d+)\\) resumed CUDA work (?<rs>[0-9.]+ \\w+) after the kill|; no process of it resumed CUDA work in the (?<ns>[0-9.]+ \\w+) recorded after the kill)?(; PID (?<q>\\d+) \\((?<qc>[^)]*)\\) allocated the most pages before the kill \\((?<k>\\d+) of (?<mm>\\d+)\\))?")) as $p |
    ($host | map(select(.host_type == "oom" and .pid == ($p.pid | tonumber))) | first) as $oom |
    ($t0 + ((($oom.ts_ns - $t0) / $m.window_ns | floor) + 1) * $m.window_ns) as $wend |
    check("an OOM record for the pid"; $oom != null; $p.pid; $oom),
    secs("kill time"; rel($oom.ts_ns); $p.at),
    (if $p.nr then count("calls that never returned"; ([$mine[] | select(.flags % 2 == 1)] | length); $p.nr) else empty end),
    (if $p.av then size("least available memory"; ([$snaps[] | select(.ts_ns < $wend) | .mem_avail] | min); $p.av) else empty end),
    ($host | map(select(.host_type == "oom_memcg" and .pid == ($p.pid | tonumber))) | first) as $mcg |
    (if $p.lim then
       check("an oom_memcg record for the pid"; $mcg != null; $p.pid; $mcg),
       size("the cgroup's limit"; $mcg.value; $p.lim),
       size("the cgroup's usage at the kill"; $mcg.dur_ns; $p.use),
       (if $p.hav then size("host memory available"; ([$snaps[] | select(.ts_ns < $wend) | .mem_avail] | min); $p.hav) else empty end),
       (if $p.ctr then check("the cgroup's container"; $p.ctr == ctrlabel($p.pid | tonumber); ctrlabel($p.pid | tonumber); $p.ctr) else empty end)
     else check("no oom_memcg record when none is named"; $mcg == null; null; $mcg) end),
    (if $p.rp then
       dur("until the replacement's first call"; ([$cuda[] | select(.pid == ($p.rp | tonumber)) | .ts_ns] | min) - $oom.ts_ns; $p.rs)
     elif $p.ns then
       # to the node's last event (a call, a host event or a snapshot), as the
       # engine's recording span ends; the stop's loss records are later
       dur("recorded after the kill"; ([$recs[] | select(.type == "cuda" or .type == "host" or .type == "snapshot") | .ts_ns] | max) - $oom.ts_ns; $p.ns)
     else empty end),
    (if $p.k then
       count("pages by the top allocator"; ([$host[] | select(.host_type == "page_alloc" and .ts_ns < $wend and .pid == ($p.q | tonumber)) | .value] | add); $p.k),
       count("all pages"; ([$host[] | select((.host_type == "page_alloc" or .host_type == "page_alloc_rest") and .ts_ns < $wend) | .value] | add); $p.mm)
     else empty end)
  elif $pattern == "between-calls" then
    ($m.base_from_ns) as $bf | ($m.base_to_ns) as $bt |
    def base: .ts_ns >= $bf and .ts_ns < $bt and (inwin | not);
    ($b - $a) as $lin | (($bt - $bf) - ($b - $a)) as $lout |
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\) made (?<ri>[0-9.]+) CUDA calls/s between \\+(?<s>-?[0-9.]+) s and \\+(?<e>[0-9.]+) s against (?<ro>[0-9.]+)/s outside that interval while its calls took (?<ci>[0-9.]+ \\w+) each against (?<co>[0-9.]+ \\w+): (?<gap>[0-9.]+ \\w+) of the interval went between its calls, (?<ex>[0-9.]+ \\w+) more than its calls needed outside it; (?<none>nothing on the host accounts for most of it: )?(?<x>[0-9.]+ \\w+) (?<what>.+?) \\((?<sh>[0-9.]+)%(, (?<nw>\\d+) waits)?\\)")) as $p |
    # the windows' figures share calls between analysis windows: within 5-10%
    def rate($what; $exp; $text): check($what; near($exp; ($text | tonumber); 0.1; 1); $exp; $text);
    def dur5($what; $exp; $text): check($what; near($exp; ($text | dn); 0.05; 1e6); $exp; $text);
    [$mine[] | select(inwin)] as $cin | [$mine[] | select(base)] as $cout |
    ($cin | map(.dur_ns) | add) as $busy_in | ($cout | map(.dur_ns) | add) as $busy_out |
    (($lout - $busy_out) / ($cout | length)) as $gap_per |
    (($lin - $busy_in) - $gap_per * ($cin | length)) as $gex |
    count("pid"; $ch.pid; $p.pid),
    secs("interval start"; rel($a); $p.s),
    secs("interval end"; rel($b); $p.e),
    rate("CUDA calls/s in the interval"; ($cin | length) * 1e9 / $lin; $p.ri),
    rate("CUDA calls/s outside"; ($cout | length) * 1e9 / $lout; $p.ro),
    dur5("mean call in the interval"; $busy_in / ($cin | length); $p.ci),
    dur5("mean call outside"; $busy_out / ($cout | length); $p.co),
    dur5("time between calls in the interval"; $lin - $busy_in; $p.gap),
    dur5("its growth over the calls' need outside"; $gex; $p.ex),
    check("a cause named"; ($p.none == null) and ($m.cause != "none"); "a cause"; $m.cause),
    (if ($m.cause | IN("other", "lock", "poll", "read", "write", "child", "sleep", "kernel", "io")) then
      (if $m.cause == "io" then [$host[] | select(.host_type == "iowait" and .pid == $ch.pid)]
       else [$host[] | select(.host_type == "wait" and .pid == $ch.pid and .other_comm == $m.cause)] end) as $wr |
      ([$wr[] | select(inwin) | .value] | add) as $win |
      (([$wr[] | select(base) | .value] | add) // 0) as $wout |
      count("\($m.cause) waits in the interval"; ([$wr[] | select(inwin) | .other_pid] | add); $p.nw),
      dur5("\($m.cause) wait over its need outside"; $win - ($cin | length) * $wout / ($cout | length); $p.x)
    else empty end)
  elif $pattern == "cpu-throttle" then
    ($s | capture("^PID (?<pid>\\d+) \\((?<comm>[^)]*)\\)( in (?<ctr>pod [^ ]+, container [0-9a-f]+|container [0-9a-f]+|cgroup [^ ]+))? ran under a CPU quota of (?<q>[0-9.]+ \\w+) per (?<per>[0-9.]+ \\w+) period \\((?<cpus>[0-9.]+) CPU\\) and its cgroup was throttled in (?<nt>\\d+) of (?<np>\\d+) periods \\((?<x>[0-9.]+)%\\) for (?<t>[0-9.]+ \\w+) between \\+(?<s>-?[0-9.]+) s and \\+(?<e>[0-9.]+) s, (?<y>[0-9.]+)% of the (?<w>[0-9.]+ \\w+) its CUDA work ran")) as $p |
    ($host | map(select(.host_type == "cpu_quota" and .pid == $ch.pid and .ts_ns < $b)) | last) as $qr |
    # each window's share that falls in the chain's [a, b)
    [$host[] | select(.host_type == "cpu_throttle" and .pid == $ch.pid and .dur_ns > 0 and
       .ts_ns < $b and .ts_ns + .dur_ns > $a) |
     ((([.ts_ns + .dur_ns, $b] | min) - ([.ts_ns, $a] | max)) / .dur_ns) as $f |
     {t: (.value * $f), nt: (.other_pid * $f), np: (.other_tid * $f)}] as $w |
    ($w | map(.t) | add) as $thr |
    ([$thr, $wall] | min) as $lost |
    count("pid"; $ch.pid; $p.pid),
    (if $p.ctr then check("its container"; $p.ctr == ctrlabel($ch.pid); ctrlabel($ch.pid); $p.ctr) else empty end),
    check("a cpu_quota record"; $qr != null; $ch.pid; $qr),
    dur("quota"; $qr.value; $p.q),
    dur("period"; $qr.dur_ns; $p.per),
    check("CPUs of the quota"; near($qr.value / $qr.dur_ns; ($p.cpus | tonumber); 0; 0.0051); $qr.value / $qr.dur_ns; $p.cpus),
    count("throttled periods"; ($w | map(.nt) | add + 0.5 | floor); $p.nt),
    count("periods"; ($w | map(.np) | add + 0.5 | floor); $p.np),
    dur("throttled time"; $thr; $p.t),
    secs("start"; rel($a); $p.s),
    secs("end"; rel($b); $p.e),
    dur("wall"; $wall; $p.w),
    pct("lost share of wall"; ($lost / $wall * 100); $p.y)
  else
    "FAIL: no check written for pattern \($pattern)"
  end
)
end
