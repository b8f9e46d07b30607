#!/bin/sh
# SPDX-License-Identifier: MIT
#
# `make install` and `make uninstall` (Makefile): puts files under
# DESTDIR+PREFIX and takes exactly those away again.
#
#   install.sh install   DESTDIR PREFIX < LIST
#   install.sh uninstall DESTDIR PREFIX < LIST
#
# LIST has one line per file, "MODE SOURCE DEST", DEST relative to PREFIX.
# install writes PREFIX/libexec/ingero/installed: "f PATH" for every file it
# installed and "d PATH" for every directory it had to create (PATH
# without DESTDIR, so a staged tree's list is the installed one's).
# uninstall removes the files that list names (the LIST given, when there
# is no such file), the list, and then the directories it created, deepest
# first, where they are empty.
set -eu
mode=$1 root=$2 prefix=$3
manifest=$prefix/libexec/ingero/installed
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# mkdirs DIR: create DIR and its missing parents, noting each one created
mkdirs() {
	d=$1
	while [ "$d" != / ] && [ ! -d "$root$d" ]; do
		echo "d $d" >>"$tmp"
		d=$(dirname "$d")
	done
	install -d -m 0755 "$root$1"
}

case $mode in
install)
	[ -f "$root$manifest" ] && grep '^d ' "$root$manifest" >>"$tmp" || true
	while read -r m src dst; do
		[ -n "$m" ] || continue
		mkdirs "$(dirname "$prefix/$dst")"
		install -m "$m" "$src" "$root$prefix/$dst"
		echo "f $prefix/$dst" >>"$tmp"
		echo "  INSTALL  $root$prefix/$dst"
	done
	mkdirs "$(dirname "$manifest")"
	echo "f $manifest" >>"$tmp"
	sort -u "$tmp" >"$root$manifest"
	chmod 0644 "$root$manifest"
	;;
uninstall)
	if [ -f "$root$manifest" ]; then
		cp "$root$manifest" "$tmp"
	else
		# no list: the files LIST names, and the directories of ours
		while read -r m src dst; do
			[ -n "$m" ] || continue
			echo "f $prefix/$dst" >>"$tmp"
			case $dst in */ingero/*) echo "d $prefix/$(dirname "$dst")" >>"$tmp" ;; esac
		done
		echo "d $prefix/libexec/ingero" >>"$tmp"
		echo "d $prefix/share/doc/ingero" >>"$tmp"
	fi
	grep '^f ' "$tmp" | cut -c3- | while read -r f; do
		if [ -e "$root$f" ] || [ -L "$root$f" ]; then
			rm -f "$root$f"
			echo "  RM       $root$f"
		fi
	done
	# deepest first; subdirectories of ours that install made (share/doc/ingero/docs)
	grep '^d ' "$tmp" | cut -c3- | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2- |
		while read -r d; do
			rmdir "$root$d" 2>/dev/null && echo "  RMDIR    $root$d" || true
		done
	;;
*)
	echo "usage: install.sh install|uninstall DESTDIR PREFIX < LIST" >&2
	exit 2
	;;
esac
