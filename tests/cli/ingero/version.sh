# SPDX-License-Identifier: MIT
# `ingero version` names the release and the log format it writes.
set -euo pipefail
v=$(ingero version)
[[ $(ingero --version) == "$v" ]]
[[ $v =~ ^ingero\ [0-9]+\.[0-9]+\.[0-9]+\ \(log\ format\ [0-9]+\.[0-9]+\)$ ]] || { echo "bad: $v"; exit 1; }
echo "version line ok"
