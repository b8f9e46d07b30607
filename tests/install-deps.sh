#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Installs what ingero's build and tests need on Debian 12, as root (or
# through sudo): every package named in tests/deps.txt (one per line, '#'
# comments), then makes sure tracefs and debugfs are mounted, which the
# recorder's tests need for uprobes and tracepoints.  `make deps` runs it;
# .ci/run runs it on a fresh machine.  Safe to run again.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ((EUID != 0)); then
	command -v sudo >/dev/null || { echo "install-deps: run as root" >&2; exit 2; }
	exec sudo -E "$here/install-deps.sh" "$@"
fi
export DEBIAN_FRONTEND=noninteractive
mapfile -t pkgs < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$here/deps.txt" | grep -v '^$' | sort -u)
echo "install-deps: ${#pkgs[@]} packages from tests/deps.txt"
apt-get update -q
apt-get install -y -q "${pkgs[@]}"

# tracefs (uprobes, tracepoints) and debugfs (older tools look for
# tracing under it); a container may forbid mounting: say so, go on, and
# let the tests that need them fail loudly.
mount_fs() { # type dir
	if mountpoint -q "$2" 2>/dev/null; then
		return 0
	fi
	mkdir -p "$2" 2>/dev/null || true
	mount -t "$1" "$1" "$2" || echo "install-deps: warning: cannot mount $1 at $2" >&2
}
mount_fs tracefs /sys/kernel/tracing
mount_fs debugfs /sys/kernel/debug
if [[ ! -e /sys/kernel/tracing/uprobe_events && ! -e /sys/kernel/debug/tracing/uprobe_events ]]; then
	echo "install-deps: warning: no uprobe_events in tracefs: the recorder's tests will fail" >&2
fi
echo "install-deps: done"
