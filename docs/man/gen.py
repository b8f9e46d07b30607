#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Man pages and shell completions from the programs' --help texts.

    gen.py man  PROG HELP VERSION DATE [FRAGMENT]   a section-1 page (roff)
    gen.py bash PROG HELP [SUB=HELP ...]            a bash completion file
    gen.py zsh  PROG HELP [SUB=HELP ...]            a zsh completion file

HELP is a file holding `PROG --help` (or - for stdin).  Every program prints
the same shape of help: a first paragraph "prog - summary", then sections
under headings in capitals (USAGE, OPTIONS, EXAMPLES, EXIT STATUS, ...),
their bodies indented; unindented paragraphs are prose.  An OPTIONS body is
a list of "  -s, --long ARG   description" items, continuation lines under
the description column; a deeper-indented "word   text" list inside an
option's description is the option's values (ingero-export --format).  A
body of "  word   text" lines (COMMANDS, SCENARIOS, ENVIRONMENT) is a
definition list; COMMANDS and SCENARIOS also give the positional words the
completions offer.  Nothing here knows any program's options: the pages and
completions follow --help by construction.

FRAGMENT (docs/man/PROG.1.in) is hand-written roff split by .SH lines: a
section the help also has (DESCRIPTION) is appended to, others are added at
the end, SEE ALSO last.  `sub=HELP` arguments (for the umbrella `ingero`)
give the subcommands' own helps, so `ingero export --fo` completes too.
"""
import re
import sys

HEADING = re.compile(r"([A-Z][A-Z0-9 ]*[A-Z0-9])(?: \((.*)\))?")
OPT_LINE = re.compile(r"( {1,8})(-\S.*)$")
ITEM_LINE = re.compile(r"( +)(\S+) {2,}(\S.*)$")
OPT_NAME = re.compile(r"(--?[A-Za-z0-9?][A-Za-z0-9_-]*)(=?)(?: ?(\S.*))?$")
FILE_ARGS = {"FILE", "LOG", "PATH", "OLD", "NEW", "RUN.db", "RUN.ilog"}
DIR_ARGS = {"DIR"}
WORD_SECTIONS = ("COMMANDS", "SCENARIOS")


class Option:
    def __init__(self, term):
        self.term = term
        self.names = []  # [(name, sep, arg)]
        for alt in term.split(", "):
            m = OPT_NAME.match(alt.strip())
            if m:
                self.names.append((m.group(1), m.group(2), m.group(3) or ""))
        self.text = []  # [str | ("item", word, [str])] in order
        self.values = []  # words of a nested list

    @property
    def arg(self):
        for _, _, a in self.names:
            if a:
                return a
        return ""

    @property
    def eq(self):
        return any(s for _, s, _ in self.names)

    def summary(self):
        words = []
        for t in self.text:
            if isinstance(t, str):
                words.append(t)
            else:
                break
        s = " ".join(words)
        m = re.match(r"(.*?[^.]\.)(\s|$)", s)
        s = m.group(1)[:-1] if m else s
        s = re.sub(r"\s*\([^)]*$", "", s)  # a parenthesis cut off by the line
        return s.strip() or self.names[0][0]


class Help:
    def __init__(self, text):
        lines = text.expandtabs().rstrip("\n").split("\n")
        i = 0
        first = []
        while i < len(lines) and lines[i].strip():
            first.append(lines[i].strip())
            i += 1
        self.name, _, self.summary = " ".join(first).partition(" - ")
        self.sections = []  # [title, note, [lines]]
        self.description = []
        cur = None
        for line in lines[i:]:
            h = HEADING.fullmatch(line)
            if h:
                cur = [h.group(1), h.group(2), []]
                self.sections.append(cur)
                continue
            if not line.strip():
                (cur[2] if cur else self.description).append("")
                continue
            if line[0] != " " and cur and cur[0] == "USAGE":
                cur = None
            (cur[2] if cur else self.description).append(line)
        self.options = []
        for title, _, body in self.sections:
            if "OPTIONS" in title:
                self.options += parse_options(body)

    def section(self, title):
        for t, _, body in self.sections:
            if t == title:
                return body
        return None

    def words(self):
        """Positional words: COMMANDS and SCENARIOS items, and lowercase
        alternatives in USAGE (`ingero help | version`)."""
        out = []
        for title in WORD_SECTIONS:
            # the first list of the section (the umbrella's COMMANDS goes on
            # with Ingero's names it only answers)
            got = False
            for line in self.section(title) or []:
                m = ITEM_LINE.match(line)
                if m and len(m.group(1)) <= 4:
                    out.append(m.group(2))
                    got = True
                elif got and not line.strip():
                    break
        for line in self.section("USAGE") or []:
            toks = re.split(r" {2,}", line.strip())[0].split()
            if len(toks) > 1 and toks[0] == self.name.split()[0]:
                out += [t for t in toks[1:] if re.fullmatch(r"[a-z][a-z0-9-]*", t)]
        return list(dict.fromkeys(out))


def blocks(body):
    """Split a section body at blank lines."""
    out, cur = [], []
    for line in body + [""]:
        if line.strip():
            cur.append(line)
        elif cur:
            out.append(cur)
            cur = []
    return out


def desc_column(lines):
    cols = {}
    for line in lines:
        m = OPT_LINE.match(line)
        if not m:
            continue
        g = re.search(r"\S {2,}(?=\S)", line[len(m.group(1)):])
        if g:
            c = len(m.group(1)) + g.end()
            cols[c] = cols.get(c, 0) + 1
    conts = [len(line) - len(line.lstrip()) for line in lines
             if line.strip() and not OPT_LINE.match(line)]
    if cols:
        return max(cols, key=lambda c: (cols[c], -c))
    return min(conts) if conts else 24


def parse_options(body):
    lines = [line for line in body if line.strip()]
    col = desc_column(lines)
    # a nested list's text column (ingero-export --format's table), where
    # a long word may be followed by one space only
    ncols = {}
    for line in lines:
        m = ITEM_LINE.match(line)
        if m and len(m.group(1)) > col:
            c = len(line) - len(m.group(3))
            ncols[c] = ncols.get(c, 0) + 1
    ncol = max(ncols, key=lambda c: (ncols[c], -c)) if ncols else 0
    opts = []
    for line in lines:
        m = OPT_LINE.match(line)
        if m:
            start = len(m.group(1))
            rest = line[start:].strip()
            if len(line) > col and line[col - 1] == " " and line[col] != " " \
                    and "  " not in line[start:col].rstrip():
                term, text = line[start:col].strip(), line[col:].strip()
            else:
                parts = re.split(r" {2,}", rest, maxsplit=1)
                term, text = parts[0], parts[1] if len(parts) > 1 else ""
            opt = Option(term)
            if not opt.names:
                if opts:
                    opts[-1].text.append(line.strip())
                continue
            if text:
                opt.text.append(text)
            opts.append(opt)
            continue
        if not opts or line[0] != " ":
            continue
        opt = opts[-1]
        indent = len(line) - len(line.lstrip())
        item = ITEM_LINE.match(line)
        if not item and ncol and indent > col and len(line) > ncol and line[ncol - 1] == " " \
                and " " not in line[indent:ncol - 1] and line[ncol] != " ":
            item = re.match(r"( +)(\S+) (\S.*)$", line)
        if indent > col and item:
            opt.text.append(("item", item.group(2), [item.group(3)]))
            opt.values.append(item.group(2))
        elif indent > col and opt.text and not isinstance(opt.text[-1], str):
            opt.text[-1][2].append(line.strip())
        else:
            opt.text.append(line.strip())
    return opts


# ---- roff ----

def esc(s):
    s = s.replace("\\", "\\e").replace("-", "\\-")
    s = "".join(c if ord(c) < 128 else "\\[u%04X]" % ord(c) for c in s)
    return "\\&" + s if s[:1] in (".", "'") else s


def fmt_term(opt):
    parts = []
    for name, sep, arg in opt.names:
        p = "\\fB" + esc(name) + "\\fR"
        if arg:
            p += (sep or " ") + "\\fI" + esc(arg) + "\\fR"
        parts.append(p)
    return ", ".join(parts)


def roff_text(lines):
    return [esc(line.strip()) for line in lines if line.strip()]


def roff_nofill(lines):
    strip = min(len(line) - len(line.lstrip()) for line in lines)
    return [".RS 4", ".nf"] + [esc(line[strip:].rstrip()) or "\\&" for line in lines] + [".fi", ".RE"]


def roff_block(title, lines):
    """A block: runs of unindented prose and of indented lines, each
    rendered on its own."""
    out, run = [], []
    for line in lines + [None]:
        if run and (line is None or (line[0] == " ") != (run[0][0] == " ")):
            if run[0][0] == " ":
                out += roff_run(title, run)
            else:
                out += ([".PP"] if out else []) + roff_text(run)
            run = []
        if line is not None:
            run.append(line)
    return out


def roff_run(title, lines):
    if title in ("USAGE", "EXAMPLES"):
        return roff_nofill(lines)
    base = min(len(line) - len(line.lstrip()) for line in lines)
    items = []
    for line in lines:
        indent = len(line) - len(line.lstrip())
        m = ITEM_LINE.match(line)
        if indent == base and m:
            items.append([m.group(2), [m.group(3)]])
        elif indent > base and items:
            items[-1][1].append(line.strip())
        else:
            items = None
            break
    if items and base > 0:
        out = []
        for word, text in items:
            out += [".TP", "\\fB" + esc(word) + "\\fR"] + roff_text(text)
        return out
    if any(len(t) > 40 for line in lines for t in line.split()):
        return roff_nofill(lines)
    return roff_text(lines)


def roff_options(opts):
    out = []
    for opt in opts:
        out += [".TP", fmt_term(opt)]
        nested = False
        for t in opt.text:
            if isinstance(t, str):
                if nested:
                    out.append(".RE")
                    nested = False
                out.append(esc(t))
            else:
                if not nested:
                    out.append(".RS")
                    nested = True
                out += [".TP 16", "\\fB" + esc(t[1]) + "\\fR"] + roff_text(t[2])
        if nested:
            out.append(".RE")
    return out


def man(prog, helptext, version, date, fragment):
    h = Help(helptext)
    extra = {}  # fragment sections, in order
    cur = None
    for line in fragment.split("\n") if fragment else []:
        m = re.match(r'\.SH\s+"?([^"]*)"?\s*$', line)
        if m:
            cur = m.group(1).strip().upper()
            extra.setdefault(cur, [])
        elif cur:
            extra[cur].append(line)
        elif line.strip() and not line.startswith('.\\"'):
            sys.exit("gen.py: %s: text before the first .SH" % prog)
    for body in extra.values():
        while body and not body[-1].strip():
            body.pop()
    out = ['.\\" Generated by docs/man/gen.py from `%s --help`%s; edit those, not this.'
           % (prog, " and docs/man/%s.1.in" % prog if fragment else ""),
           '.TH %s 1 "%s" "ingero %s" "ingero manual"' % (esc(prog.upper()), date, version),
           ".SH NAME", "%s \\- %s" % (esc(prog), esc(h.summary))]
    sections = []  # (title, roff lines)
    desc = []
    for b in blocks(h.description):
        desc += [".PP"] + roff_block("", b)
    for title, note, body in h.sections:
        lines = []
        if note:
            lines += [".PP", esc("(" + note + ")")]
        if "OPTIONS" in title:
            lines += roff_options(parse_options(body))
            body = [line for line in body if not line.strip() or line[0] != " "]
            # prose after the option list stays in the section
            prose = []
            for line in body:
                prose.append(line)
            for b in blocks(prose):
                lines += [".PP"] + roff_block(title, b)
        else:
            for b in blocks(body):
                lines += [".PP"] + roff_block(title, b)
        if title == "USAGE":
            sections.append(("SYNOPSIS", lines))
            sections.append(("DESCRIPTION", desc))
            desc = None
        else:
            sections.append((title, lines))
    if desc is not None:
        sections.insert(0, ("DESCRIPTION", desc))
    titles = [t for t, _ in sections]
    for t, body in extra.items():
        if t in titles:
            sections[titles.index(t)][1].extend(body)
        elif t != "SEE ALSO":
            sections.append((t, body))
    if "SEE ALSO" in extra:
        sections.append(("SEE ALSO", extra["SEE ALSO"]))
    for t, body in sections:
        if not body:
            continue
        if body[0] in (".PP", ".TP"):
            body = body[1:] if body[0] == ".PP" else body
        out.append(".SH " + ('"%s"' % t if " " in t else t))
        out += body
    return "\n".join(out) + "\n"


# ---- completions ----

def arg_kind(opt):
    a = opt.arg
    if opt.values:
        return "values"
    if a == "BOOL":
        return "bool"
    if a in DIR_ARGS:
        return "dir"
    if a in FILE_ARGS or a.endswith(".db") or a.endswith(".ilog"):
        return "file"
    return "other" if a else "none"


def fname(prog):
    return "_" + re.sub(r"[^A-Za-z0-9]", "_", prog)


def bash_func(prog, h):
    opts = h.options
    words = " ".join(opt_word(n, s) for o in opts for n, s, _ in o.names)
    cases = []
    for kind in ("values", "bool", "dir", "file", "other"):
        sel = [o for o in opts if arg_kind(o) == kind]
        if not sel:
            continue
        if kind == "values":
            for o in sel:
                pat = "|".join(n for n, _, _ in o.names)
                cases.append("\t%s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")); return ;;"
                             % (pat, " ".join(o.values)))
            continue
        pat = "|".join(n for o in sel for n, _, _ in o.names)
        act = {"bool": "COMPREPLY=($(compgen -W 'true false' -- \"$cur\"))",
               "dir": "COMPREPLY=($(compgen -d -- \"$cur\"))",
               "file": "COMPREPLY=($(compgen -f -- \"$cur\"))",
               "other": "COMPREPLY=()"}[kind]
        cases.append("\t%s) %s; return ;;" % (pat, act))
    pos = " ".join(h.words())
    f = fname(prog)
    out = ["%s() {" % f,
           "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}",
           "\t# --opt=VALUE: bash splits at '=' (COMP_WORDBREAKS)",
           "\tif [[ $cur == = ]]; then cur=''; fi",
           "\tif [[ $prev == = ]] && ((COMP_CWORD > 1)); then prev=${COMP_WORDS[COMP_CWORD-2]}; fi",
           "\tif [[ $cur == -*=* ]]; then prev=${cur%%=*}; cur=${cur#*=}; fi",
           "\tcase $prev in"] + cases + [
           "\tesac",
           "\tcase $cur in",
           "\t-*)",
           "\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % words,
           "\t\t[[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null",
           "\t\t;;",
           "\t*)"]
    if pos:
        out.append("\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\") $(compgen -f -- \"$cur\"))" % pos)
    else:
        out.append("\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))")
    out += ["\t\t;;", "\tesac", "}"]
    return out


def opt_word(name, sep):
    return name + ("=" if sep else "")


def bash(prog, h, subs):
    out = ["# bash completion for %s; generated by docs/man/gen.py from its --help" % prog,
           "# SPDX-License-Identifier: MIT"]
    out += bash_func(prog, h)
    if subs:
        for sub, sh in subs:
            out += bash_func(prog + "-" + sub, sh)
        cmds = " ".join(h.words())
        f = fname(prog)
        uopts = " ".join(opt_word(n, s) for o in h.options for n, s, _ in o.names)
        out += ["%s_umbrella() {" % f,
                "\tlocal cur=${COMP_WORDS[COMP_CWORD]} i=1",
                "\t# the command is the first word that is not an option of %s" % prog,
                "\twhile ((i < COMP_CWORD)) && [[ ${COMP_WORDS[i]} == -* ]]; do ((i++)); done",
                "\tif ((i == COMP_CWORD)); then",
                "\t\tif [[ $cur == -* ]]; then",
                "\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % uopts,
                "\t\telse",
                "\t\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % cmds,
                "\t\tfi",
                "\t\treturn",
                "\tfi",
                "\tlocal sub=${COMP_WORDS[i]}",
                "\tif [[ $sub == help ]]; then",
                "\t\t((COMP_CWORD == i + 1)) && COMPREPLY=($(compgen -W '%s' -- \"$cur\"))" % " ".join(s for s, _ in subs),
                "\t\treturn",
                "\tfi",
                "\tlocal fn=%s_${sub//[^A-Za-z0-9]/_}" % f,
                "\tdeclare -F \"$fn\" >/dev/null || { COMPREPLY=($(compgen -f -- \"$cur\")); return; }",
                "\t# complete as `%s-SUB ARGS...`" % prog,
                "\tlocal COMP_WORDS=(\"%s-$sub\" \"${COMP_WORDS[@]:i+1}\") COMP_CWORD=$((COMP_CWORD - i))" % prog,
                "\t\"$fn\"",
                "}",
                "complete -F %s_umbrella %s" % (f, prog)]
    else:
        out.append("complete -F %s %s" % (fname(prog), prog))
    return "\n".join(out) + "\n"


def zq(s):
    """Quote for a zsh _arguments spec inside single quotes."""
    s = re.sub(r"([\[\]:\\])", r"\\\1", s)
    return s.replace("'", "'\\''")


def zsh_specs(h):
    specs = []
    for o in h.options:
        names = [n for n, _, _ in o.names]
        desc = zq(o.summary())
        kind = arg_kind(o)
        act = ""
        if kind != "none":
            act = ":" + zq(o.arg.lower()) + ":" + {
                "values": "(%s)" % " ".join(zq(v) for v in o.values),
                "bool": "(true false)", "dir": "_files -/", "file": "_files",
                "other": " "}[kind]
        rep = "*" if "repeatable" in " ".join(t for t in o.text if isinstance(t, str)) else ""
        excl = "(%s)" % " ".join(names) if len(names) > 1 and not rep else ""
        for n, sep, _ in o.names:
            specs.append("'%s%s%s%s[%s]%s'" % (excl, rep, n, "=" if sep else "", desc, act))
    return specs


def zsh_func(prog, h, name):
    specs = zsh_specs(h)
    pos = h.words()
    out = ["%s() {" % name, "\t_arguments -s -S \\"]
    out += ["\t\t%s \\" % s for s in specs]
    if pos:
        what = "scenario" if h.section("SCENARIOS") else "command"
        out.append("\t\t'1:%s:(%s)' \\" % (what, " ".join(pos)))
    out.append("\t\t'*:log:_files'")
    out.append("}")
    return out


def zsh(prog, h, subs):
    out = ["#compdef %s" % prog,
           "# zsh completion for %s; generated by docs/man/gen.py from its --help" % prog,
           "# SPDX-License-Identifier: MIT"]
    if not subs:
        out += zsh_func(prog, h, "_%s" % prog.replace("-", "_"))
        out.append('_%s "$@"' % prog.replace("-", "_"))
        return "\n".join(out) + "\n"
    for sub, sh in subs:
        out += zsh_func(prog + "-" + sub, sh, "_%s_%s" % (prog, sub.replace("-", "_")))
    cmds = []
    words = h.words()
    for line in h.section("COMMANDS") or []:
        m = ITEM_LINE.match(line)
        if m and m.group(2) in words:
            cmds.append("'%s:%s'" % (zq(m.group(2)), zq(m.group(3))))
    for w in h.words():
        if not any(c.startswith("'%s:" % w) for c in cmds):
            cmds.append("'%s:%s'" % (w, w))
    specs = zsh_specs(h)
    out += ["_%s() {" % prog,
            "\tlocal curcontext=$curcontext state line ret=1",
            "\tlocal -a cmds",
            "\tcmds=(%s)" % " ".join(cmds),
            "\t_arguments -C -s \\"]
    out += ["\t\t%s \\" % sp for sp in specs]
    out += ["\t\t'1:command:->command' \\",
            "\t\t'*::arg:->args' && ret=0",
            "\tcase $state in",
            "\tcommand)",
            "\t\t_describe -t commands '%s command' cmds && ret=0" % prog,
            "\t\t;;",
            "\targs)",
            "\t\tlocal sub=${words[1]}",
            "\t\tif [[ $sub == help ]]; then",
            "\t\t\t((CURRENT == 2)) && _describe -t commands '%s command' cmds && ret=0" % prog,
            "\t\telif (( $+functions[_%s_${sub//-/_}] )); then" % prog,
            "\t\t\twords[1]=%s-$sub" % prog,
            "\t\t\tcurcontext=${curcontext%%:*:*}:%s-$sub:" % prog,
            "\t\t\t_%s_${sub//-/_} && ret=0" % prog,
            "\t\telse",
            "\t\t\t_files && ret=0",
            "\t\tfi",
            "\t\t;;",
            "\tesac",
            "\treturn ret",
            "}",
            '_%s "$@"' % prog]
    return "\n".join(out) + "\n"


def read(path):
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as f:
        return f.read()


def main(argv):
    if len(argv) < 4 or argv[1] not in ("man", "bash", "zsh"):
        sys.stderr.write(__doc__)
        return 2
    mode, prog, helptext = argv[1], argv[2], read(argv[3])
    if mode == "man":
        if len(argv) < 6:
            sys.stderr.write(__doc__)
            return 2
        fragment = read(argv[6]) if len(argv) > 6 else ""
        sys.stdout.write(man(prog, helptext, argv[4], argv[5], fragment))
        return 0
    h = Help(helptext)
    subs = []
    for a in argv[4:]:
        sub, _, path = a.partition("=")
        subs.append((sub, Help(read(path))))
    if not h.options and not subs:
        sys.exit("gen.py: %s --help lists no options" % prog)
    sys.stdout.write((bash if mode == "bash" else zsh)(prog, h, subs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
