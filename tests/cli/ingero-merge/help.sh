# SPDX-License-Identifier: MIT
# --help: purpose, usage, options, examples, exit status on stdout, exit 0.
set -euo pipefail
ingero-merge --help >help.txt
grep -c '^USAGE$\|^OPTIONS$\|^EXAMPLES$\|^EXIT STATUS$' help.txt
for opt in --output --node --force-node --align --clock-skew-threshold --reference --dry-run; do
	grep -q -- "$opt" help.txt && echo "$opt"
done
ingero-merge --bogus 2>&1 || echo "exit $?"
