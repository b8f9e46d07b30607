# SPDX-License-Identifier: MIT
# flip_check LOG N SEED: N times, one random bit of LOG flipped (SEED picks
# them, printed on failure); each time ingero-export must read back every
# frame but the damaged one (SPEC §9): one error line naming the damaged
# frame's offset and the bytes to the next frame, the records before that
# frame and after it exactly the undamaged log's, exit 2.  A flip that
# changes nothing decoded (a bit zstd does not use) must read whole.
# Sourced by the cases (not a case itself); sets flips_damaged.
flip_check() {
	local log=$1 n=$2 seed=$3 size i off bit rc frm to before upto total
	size=$(stat -c %s "$log")
	ingero-export "$log" >whole.jsonl || { echo "FAIL: $log does not read whole" >&2; return 1; }
	total=$(wc -l <whole.jsonl)
	RANDOM=$seed
	flips_damaged=0
	for ((i = 0; i < n; i++)); do
		off=$(((RANDOM * 32768 + RANDOM) % size))
		bit=$((1 << (RANDOM % 8)))
		cp "$log" flip.ilog
		printf "\\x$(printf %02x $(($(od -An -tu1 -j "$off" -N1 "$log") ^ bit)))" |
			dd of=flip.ilog bs=1 seek="$off" conv=notrunc status=none
		rc=0
		ingero-export flip.ilog >flip.jsonl 2>flip.err || rc=$?
		if [[ $rc == 0 ]]; then
			cmp -s flip.jsonl whole.jsonl && [[ ! -s flip.err ]] ||
				{ echo "FAIL: seed $seed flip $i (byte $off ^ $bit): exit 0 but not the whole log" >&2; return 1; }
			continue
		fi
		flips_damaged=$((flips_damaged + 1))
		# one line: "ingero-export: flip.ilog: offset F: ... (K bytes skipped, to offset T, ...)"
		# or "(K bytes to the end skipped...)" for the last frame
		if [[ $rc != 2 || $(wc -l <flip.err) != 1 ]]; then
			echo "FAIL: seed $seed flip $i (byte $off ^ $bit): exit $rc, stderr:" >&2
			cat flip.err >&2
			return 1
		fi
		frm=$(sed -n 's/^ingero-export: flip\.ilog: offset \([0-9]*\): .*/\1/p' flip.err)
		to=$(sed -n 's/.*(\([0-9]*\) bytes skipped, to offset \([0-9]*\)[,)].*/\2/p' flip.err)
		# else the range runs to the end: said so, or a cut-short tail
		if [[ -z $to ]] && grep -qE 'bytes to the end skipped|: truncated' flip.err; then
			to=$size
		fi
		[[ -n $to ]] || { echo "FAIL: seed $seed flip $i (byte $off ^ $bit): no range: $(cat flip.err)" >&2; return 1; }
		if [[ -z $frm ]] || ((off < frm || off >= to)); then
			echo "FAIL: seed $seed flip $i (byte $off ^ $bit): the range does not hold it: $(cat flip.err)" >&2
			return 1
		fi
		# the frames before [frm, to) and after it are whole logs' worth
		# of records: the records of a prefix cut at a frame boundary
		before=$(head -c "$frm" "$log" | ingero-export 2>/dev/null | wc -l)
		upto=$(head -c "$to" "$log" | ingero-export 2>/dev/null | wc -l)
		((frm == 0)) && before=0
		if ! cmp -s flip.jsonl <(head -n "$before" whole.jsonl; tail -n +"$((upto + 1))" whole.jsonl); then
			# a damaged frame may hold a clock anchor (or the header):
			# later records then show their wall time from an older
			# one (or none), so compare the records' own fields
			if cmp -s <(jq -c 'del(.time)' flip.jsonl) \
				<({ head -n "$before" whole.jsonl; tail -n +"$((upto + 1))" whole.jsonl; } |
					jq -c 'del(.time)'); then
				:
			else
				echo "FAIL: seed $seed flip $i (byte $off ^ $bit): records outside [$frm, $to) differ ($(wc -l <flip.jsonl) read, want $((before + total - upto)))" >&2
				return 1
			fi
		fi
	done
}
