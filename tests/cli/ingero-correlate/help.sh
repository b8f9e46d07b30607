# --help: purpose, usage, options, the rules, examples, exit codes, on stdout
out=$(ingero-correlate --help) || exit 1
for w in USAGE OPTIONS RULES EXAMPLES "EXIT STATUS" --baseline --threshold --report --json --per-process --window; do
	grep -q -- "$w" <<<"$out" || { echo "missing $w" >&2; exit 1; }
done
