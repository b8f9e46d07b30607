# SPDX-License-Identifier: MIT
# `ingero help` (and --help, -h): stdout, exit 0, the sections, and every
# built program listed as installed.
set -euo pipefail
ingero help >help.txt
ingero --help | cmp - help.txt
ingero -h | cmp - help.txt
for s in USAGE COMMANDS EXAMPLES "EXIT STATUS"; do
	grep -q "^$s" help.txt || { echo "no $s section"; exit 1; }
done
for cmd in record symbolize correlate merge export mcp demo; do
	line=$(grep "^  $cmd " help.txt) || { echo "$cmd not listed"; exit 1; }
	if [[ -x $INGERO_BIN/ingero-$cmd ]]; then
		[[ $line != *"(not installed)"* ]] || { echo "$cmd is built but listed as not installed"; exit 1; }
	else
		[[ $line == *"(not installed)"* ]] || { echo "$cmd is not built but listed as installed"; exit 1; }
	fi
done
echo "help lists all commands"
