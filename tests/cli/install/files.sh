# make install DESTDIR=... PREFIX=/usr puts every program, man page,
# completion, doc and demo file in place; every man page renders without a
# warning and names every option its program's --help lists, as do both
# completions; the bash completions load and complete; make uninstall
# removes exactly what install put there and the directories it created
. "$INGERO_TESTS/cli/install/install.bash"
command -v zsh >/dev/null || { echo "zsh is missing (tests/deps.txt)" >&2; exit 77; }
command -v groff >/dev/null && command -v man >/dev/null ||
	{ echo "man or groff is missing (tests/deps.txt)" >&2; exit 77; }
fail() { echo "$*" >&2; bad=1; }
bad=0
# something of someone else's, which uninstall must leave alone
mkdir -p dest/usr/share/man/man1 dest/usr/share/zsh/site-functions
echo 'not ingero' >dest/usr/share/man/man1/other.1
(cd dest && find . | sort) >before
mk install DESTDIR="$PWD/dest" PREFIX=/usr >install.log 2>&1 || { cat install.log >&2; exit 1; }
u=dest/usr
for p in $progs; do
	[[ -x $u/bin/$p ]] || fail "$p: not installed"
	page=$u/share/man/man1/$p.1 bashc=$u/share/bash-completion/completions/$p
	zshc=$u/share/zsh/site-functions/_$p
	for f in "$page" "$bashc" "$zshc"; do [[ -s $f ]] || fail "$f: missing"; done
	err=$(groff -t -man -ww -z "$page" 2>&1)
	[[ -z $err ]] || fail "$page: groff: $err"
	err=$(MANWIDTH=80 man -l -Tutf8 "$page" 2>&1 >/dev/null)
	[[ -z $err ]] || fail "$page: man: $err"
	grep -q "^$p - " <(MANWIDTH=200 man -l "$page" 2>/dev/null | sed -n '/^NAME/,/^[A-Z]/p' | sed 's/^ *//') ||
		fail "$page: no NAME line '$p - ...'"
	text=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$page")
	opts=$(help_options "$p")
	[[ -n $opts || $p == ingero ]] || fail "$p: no options read from --help"
	for o in $opts; do
		has "$text" "$o" || fail "$page: no $o (in $p --help)"
		has "$(<"$bashc")" "$o" || fail "$bashc: no $o (in $p --help)"
		has "$(<"$zshc")" "$o" || fail "$zshc: no $o (in $p --help)"
	done
	bash -c "source '$bashc' && complete -p $p" >/dev/null 2>&1 || fail "$bashc: does not load"
	zsh -n "$zshc" || fail "$zshc: zsh syntax"
done
# the umbrella's completions know every subcommand's options too
for p in $progs; do
	[[ $p == ingero ]] && continue
	for o in $(help_options "$p"); do
		has "$(<"$u/share/bash-completion/completions/ingero")" "$o" || fail "bash ingero: no $o of $p"
	done
done
zsh -f -c "fpath=($PWD/$u/share/zsh/site-functions \$fpath); autoload -U compinit; compinit -u -D
	print -r -- \$_comps[ingero] \$_comps[ingero-export]" >zcomps 2>&1
[[ $(<zcomps) == "_ingero _ingero-export" ]] || fail "zsh compinit: $(<zcomps)"
m5=$u/share/man/man5/ingero-log.5
err=$( { groff -t -man -ww -z "$m5"; MANWIDTH=80 man -l -Tutf8 "$m5" >/dev/null; } 2>&1)
[[ -s $m5 && -z $err ]] || fail "$m5: missing or warns: $err"
grep -q '/usr/share/doc/ingero/format/SPEC.md' "$m5" || fail "$m5: does not point to the installed spec"
for f in README.md LICENSE format/SPEC.md docs/HACKING.md; do
	cmp -s "$root/$f" "$u/share/doc/ingero/$f" || fail "doc $f: not installed"
done
for f in libcudart.so.13 libcuda.so.1 libnccl.so.2 workload; do
	[[ -s $u/libexec/ingero/$f ]] || fail "libexec/ingero/$f: not installed"
done

# bash completion: ingero-export --fo -> --format; --format <TAB> -> its formats
bc=$u/share/bash-completion/completions
[[ $(complete_words "$bc/ingero-export" ingero-export --fo) == --format ]] ||
	fail "ingero-export --fo: $(complete_words "$bc/ingero-export" ingero-export --fo | tr '\n' ' ')"
want=$(export_formats | sort)
[[ -n $want ]] || fail "no formats read from ingero-export --help"
got=$(complete_words "$bc/ingero-export" ingero-export --format '' | sort)
[[ $got == "$want" ]] || fail "ingero-export --format: got '$(echo $got)', want '$(echo $want)'"
got=$(complete_words "$bc/ingero" ingero export -f '' | sort)
[[ $got == "$want" ]] || fail "ingero export -f: got '$(echo $got)'"
got=$(complete_words "$bc/ingero" ingero ex)
[[ $got == export ]] || fail "ingero ex: got '$got'"
got=$(complete_words "$bc/ingero-demo" ingero-demo inc)
[[ $got == incident* ]] || fail "ingero-demo inc: got '$got'"

# uninstall: back to what was there before, and nothing else
mk uninstall DESTDIR="$PWD/dest" PREFIX=/usr >uninstall.log 2>&1 || { cat uninstall.log >&2; exit 1; }
(cd dest && find . | sort) >after
diff before after >&2 || fail "uninstall left or removed the above"
# into an empty DESTDIR: nothing at all is left
mkdir dest2
mk install DESTDIR="$PWD/dest2" PREFIX=/usr >/dev/null 2>&1 && mk uninstall DESTDIR="$PWD/dest2" PREFIX=/usr >/dev/null 2>&1 ||
	fail "install/uninstall into dest2 failed"
left=$(find dest2 -mindepth 1)
[[ -z $left ]] || fail "uninstall left: $left"
exit $bad
