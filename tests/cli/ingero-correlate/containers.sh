# Reports group processes by container when a log has more than one: the
# synthesized noisy-neighbour log (the job's pod and the neighbour's) gets a
# CONTAINERS section in the text report (the job's container first, then
# the neighbour's with its process, named by the chain), one "container" record per group in
# --json and a Containers table (and a Container column per process) in
# --html; a log with no container (incident) gets none of them.
set -e
ingero demo --no-bpf noisy-neighbour -o nn.ilog >/dev/null
ingero-correlate --report nn.ilog >r.txt
sed -n '/^CONTAINERS/,/^$/p' r.txt >groups.txt
head -n 1 groups.txt | grep -qx 'CONTAINERS (node demo-node): 2 groups of processes'
sed -n 2p groups.txt | grep -q '^  pod 7a1b0000-2222-4333-8444-555566667777, container feed0000feed (cgroup /kubepods/besteffort/pod7a1b0000-2222-4333-8444-555566667777/feed0000feed[0-9a-f]*): 1 process, [0-9]* CUDA calls$'
sed -n 3p groups.txt | grep -Eq '^    PID [0-9]+ +python3 +[0-9]+ CUDA calls, '
sed -n 4p groups.txt | grep -q '^  pod 0d3e0000-1111-4222-8333-444455556666, container c0ffee00c0ff (cgroup .*): 1 process, 0 CUDA calls$'
sed -n 5p groups.txt | grep -Eq '^    PID [0-9]+ +neighbour +no CUDA calls, named by a chain$'
# the groups' CUDA calls are the log's
ingero-export nn.ilog >recs.jsonl
calls=$(jq -s '[.[] | select(.type=="cuda")] | length' recs.jsonl)
ingero-correlate --json nn.ilog >j.jsonl
[ "$(jq -sc '[.[] | select(.type=="container") | [.pod_uid, .calls, (.processes | map(.comm))]]' j.jsonl)" = \
  "[[\"7a1b0000-2222-4333-8444-555566667777\",$calls,[\"python3\"]],[\"0d3e0000-1111-4222-8333-444455556666\",0,[\"neighbour\"]]]" ]
# the summary comes first, the container records right after it
[ "$(jq -r .type j.jsonl | head -n 3 | paste -sd,)" = summary,container,container ]
ingero-correlate --html nn.html nn.ilog
grep -q '<section id="containers">' nn.html
grep -q '<th class="s">Container</th></tr></thead>' nn.html
grep -q '<td class="s">c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00</td>' nn.html
# the chain's card names the culprit's container
grep -q '(PID [0-9]*) in <span class="culprit-container">pod 0d3e0000-1111-4222-8333-444455556666, container c0ffee00c0ff</span></p>' nn.html
# one container or none: the reports are as before
ingero demo --no-bpf incident -o inc.ilog >/dev/null
ingero-correlate --report inc.ilog | grep -c '^CONTAINERS' | grep -qx 0
ingero-correlate --json inc.ilog | jq -se 'all(.[]; .type != "container")' >/dev/null
ingero-correlate --html inc.html inc.ilog
! grep -q 'id="containers"\|>Container</th>' inc.html
