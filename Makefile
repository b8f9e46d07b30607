# SPDX-License-Identifier: MIT
# ingero: `make` builds every program into bin/; see README for targets.

CC      ?= gcc
CLANG   ?= clang
PREFIX  ?= /usr/local
OUT     ?= .output
BIN     ?= bin
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -Werror -Wno-missing-field-initializers -Wshadow -Wformat=2 -Wvla
# Public headers are "ingero/NAME.h" (lib/include/); a folder's own headers
# are found next to the file that includes them (lib/README.md).
CPPFLAGS += -D_GNU_SOURCE -Ilib/include -Ibpf -I$(OUT)
DEPFLAGS = -MMD -MP
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS)
LDLIBS_BASE := -lzstd -lmsgpackc -lm
# What the packages (install, deb, dist) are stamped with: the version
# lib/include/ingero/ilog.h defines, and the time of the last commit (or
# SOURCE_DATE_EPOCH), so two builds of one tree give the same bytes.
VERSION := $(shell sed -n 's/^\#define INGERO_VERSION "\(.*\)"/\1/p' lib/include/ingero/ilog.h)
EPOCH   := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),1700000000)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# lib/ is built per layer folder, each its own archive (lib/README.md says
# which may use which); a subfolder (export/sqlite) goes into its folder's
# archive.  LAYERS is in link order: a layer only uses those after it.
LAYERS   := export symbolize merge analyze cli codec base
layer_a   = $(OUT)/lib/libingero_$(1).a
layer_srcs = $(wildcard lib/$(1)/*.c lib/$(1)/*/*.c)
LIB_SRCS := $(foreach l,$(LAYERS),$(call layer_srcs,$(l)))
LIB_OBJS := $(patsubst lib/%.c,$(OUT)/lib/%.o,$(LIB_SRCS))
# every archive, for the tests and test tools (white-box: they may use any layer)
LIB      := $(foreach l,$(LAYERS),$(call layer_a,$(l)))
CMDS     := $(notdir $(wildcard cmd/ingero*))
BINS     := $(addprefix $(BIN)/,$(CMDS))
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNITS    := $(patsubst tests/unit/%.c,$(OUT)/tests/unit/%,$(UNIT_SRCS))
TEST_TOOLS_SRCS := $(wildcard tests/tools/*.c)
TEST_TOOLS := $(patsubst tests/tools/%.c,$(OUT)/tests/tools/%,$(TEST_TOOLS_SRCS))

.PHONY: all test unit asan fuzz bench install uninstall deb man clean demo deps check-format dist
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BINS) $(UNITS) $(TEST_TOOLS)

# What is particular to a program lives next to it: cmd/<name>/build.mk
# names its layers in LAYERS_<name> and may set EXTRA_OBJS_<name>,
# LDLIBS_<name> and DEPS_<name> (see the program rule below).
# tests/build.mk adds test-only artefacts.
-include $(wildcard cmd/*/build.mk) $(wildcard tests/build.mk)

# Every C file is compiled into an object of its own with a .d file, so an
# edit recompiles only the objects that include what was edited, and then
# relinks: $(call compile,MORE_CPPFLAGS) for $< into $@, $(call link,OBJECTS
# AND LIBRARIES).
compile = $(CC) $(CPPFLAGS) $(1) $(DEPFLAGS) $(ALL_CFLAGS) -c $< -o $@
link    = $(CC) $(ALL_CFLAGS) -o $@ $(1) $(LDLIBS_BASE)

$(OUT)/lib/%.o: lib/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(call compile)

define layer_rule
$(call layer_a,$(1)): $(patsubst lib/%.c,$(OUT)/lib/%.o,$(call layer_srcs,$(1)))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rule,$(l))))
-include $(LIB_OBJS:.o=.d)

# A program is every .c in its cmd/ directory, each compiled into its own
# object in $(OUT)/cmd/<name>/ (with a .d file, so an edit recompiles only
# what includes the edited file), linked against the layers its build.mk
# names in LAYERS_<name> (put in LAYERS order here), its EXTRA_OBJS_<name>
# and the libraries in its LDLIBS_<name>: each program links only what it
# uses.  DEPS_<name> are generated headers its objects include (the BPF
# skeleton): made before they compile, tracked by the .d files after.
prog_layers = $(filter $(LAYERS_$(1)),$(LAYERS))
prog_libs   = $(foreach l,$(call prog_layers,$(1)),$(call layer_a,$(l)))
prog_objs   = $(patsubst cmd/%.c,$(OUT)/cmd/%.o,$(wildcard cmd/$(1)/*.c))
define prog_rule
$(OUT)/cmd/$(1)/%.o: cmd/$(1)/%.c | $(DEPS_$(1))
	$$(call msg,CC,$$@)
	$$(Q)mkdir -p $$(@D)
	$$(Q)$$(call compile,-Icmd/$(1))
$(BIN)/$(1): $(call prog_objs,$(1)) $(EXTRA_OBJS_$(1)) $(call prog_libs,$(1)) | $(BIN)
	$$(call msg,LINK,$$@)
	$$(Q)$$(call link,$(call prog_objs,$(1)) $(EXTRA_OBJS_$(1)) $(call prog_libs,$(1)) $$(LDLIBS_$(1)))
-include $(patsubst %.o,%.d,$(call prog_objs,$(1)))
endef
$(foreach c,$(CMDS),$(eval $(call prog_rule,$(c))))

# Unit tests are white-box: a layer's own headers are on their path too.
UNIT_I := $(addprefix -Ilib/,$(filter-out export,$(LAYERS))) -Ilib/export
$(OUT)/tests/unit/%.o: tests/unit/%.c | $(OUT)/tests/unit
	$(call msg,CC,$@)
	$(Q)$(call compile,-Itests/unit $(UNIT_I))
$(OUT)/tests/unit/%: $(OUT)/tests/unit/%.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(call link,$< $(LIB))
-include $(UNITS:=.d)

# A test tool is tests/tools/NAME.c plus the objects of the cmd/ sources
# tests/build.mk names in TOOL_SRCS_NAME (whose folders are on its
# include path).
tool_objs = $(patsubst cmd/%.c,$(OUT)/cmd/%.o,$(TOOL_SRCS_$(1)))
$(OUT)/tests/tools/%.o: tests/tools/%.c | $(OUT)/tests/tools
	$(call msg,CC,$@)
	$(Q)$(call compile,$(addprefix -I,$(sort $(dir $(TOOL_SRCS_$*)))))
.SECONDEXPANSION:
$(OUT)/tests/tools/%: $(OUT)/tests/tools/%.o $$(call tool_objs,$$*) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(call link,$< $(call tool_objs,$*) $(LIB))
-include $(TEST_TOOLS:=.d)

$(OUT)/tests/unit $(OUT)/tests/tools $(BIN):
	$(Q)mkdir -p $@

# `make test`: unit tests, CLI tests, scenario tests; ends "N passed, N failed, N skipped".
test: all
	$(Q)INGERO_BIN=$(abspath $(BIN)) INGERO_OUT=$(abspath $(OUT)) INGERO_TESTS=$(abspath tests) tests/run.sh

# The same suite under ASan+UBSan, built apart from the normal build.  At
# -O1 gcc's flow-based warnings (maybe-uninitialized, format-truncation)
# see other paths than at -O2; the normal build is the warning gate, so
# here they stay warnings.  Left out: the real-recording demo scenarios,
# the clean-workload batch and the GPU proof script on the fake stack
# (they judge timing, which ASan distorts; their code -- recorder,
# correlate -- runs under ASan in the record, caps, scenario, burst and
# unit cases), and the packaging groups (dist
# builds its own static programs, install packages what was built: neither
# runs code the other cases do not).
asan:
	$(Q)INGERO_TEST_EXCLUDE="cli/ingero-demo/real_ cli/gpu-fake/ cli/cleanload/batch cli/dist/ cli/install/" \
	$(MAKE) --no-print-directory OUT=.output/asan BIN=.output/asan/bin OPT=-O1 \
		SANFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
		-Wno-error=maybe-uninitialized -Wno-error=format-truncation" \
		test

FUZZ_SRCS := $(wildcard tests/fuzz/*.c)
FUZZERS   := $(patsubst tests/fuzz/%.c,.output/fuzz/%,$(FUZZ_SRCS))
FUZZ_TIME ?= 60
# A fuzz target is tests/fuzz/NAME.c with the sources of its subject only:
# the layers in FUZZ_LAYERS_NAME, the files in FUZZ_SRCS_NAME, linked with
# FUZZ_LDLIBS_NAME, all built with the sanitizers.
FUZZ_LAYERS_reader      := codec base
FUZZ_LAYERS_records     := codec base
FUZZ_LAYERS_parse       := codec base
FUZZ_LAYERS_correlate   := analyze codec base
FUZZ_LAYERS_mcp_request := export analyze cli codec base
FUZZ_SRCS_mcp_request   := $(filter-out %/main.c %/http.c,$(wildcard cmd/ingero-mcp/*.c))
FUZZ_LDLIBS_mcp_request := -ljansson -lsqlite3 -lcurl -ldeflate -lmicrohttpd
fuzz_srcs = $(foreach l,$(FUZZ_LAYERS_$(1)),$(call layer_srcs,$(l))) $(FUZZ_SRCS_$(1))
.output/fuzz/%: tests/fuzz/%.c $$(call fuzz_srcs,$$*) $(shell find lib -name '*.h') $(wildcard tests/fuzz/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(CPPFLAGS) $(addprefix -I,$(sort $(dir $(FUZZ_SRCS_$*)))) -g -O1 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ $< $(call fuzz_srcs,$*) $(FUZZ_LDLIBS_$*) $(LDLIBS_BASE)

# `make fuzz`: each target for FUZZ_TIME seconds, seeded from tests/vectors,
# tests/data and synth logs (tests/fuzz/run.sh); FUZZ_SEED=N fixes
# libFuzzer's random seed (CI: the same inputs on every run, in order).
fuzz: $(FUZZERS) $(OUT)/tests/tools/synth
	$(Q)INGERO_OUT=$(abspath $(OUT)) FUZZ_SEED=$(FUZZ_SEED) tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZERS)

bench: all
	$(Q)for b in bench/*/run; do echo "== $$b"; INGERO_BIN=$(abspath $(BIN)) INGERO_OUT=$(abspath $(OUT)) $$b || exit 1; done

# ---- make install, make uninstall, make deb ----
# `make install` (PREFIX, DESTDIR): the programs into bin/; section-1 man
# pages generated from each program's --help by docs/man/gen.py (plus the
# hand-written docs/man/NAME.1.in) and docs/man/ingero-log.5; bash and zsh
# completions generated from the same --help texts; README, LICENSE, the
# format spec and docs/ into share/doc/ingero/; the demo's fake CUDA
# libraries and workload into libexec/ingero/, where the installed
# ingero-demo finds them (../libexec/ingero from its bin/).  docs/man/install.sh
# notes what it installed, and the directories it created, in
# libexec/ingero/installed; `make uninstall` (the same PREFIX and DESTDIR)
# removes exactly those.  `make deb`: $(DEBDIR)/ingero_VERSION-1_ARCH.deb from
# a DESTDIR install with PREFIX=/usr (docs/man/deb.sh).
INST_DATE     := $(shell date -u -d @$(EPOCH) +%Y-%m-%d)
INST_GEN      := $(OUT)/install
INST_SUBS     := $(patsubst ingero-%,%,$(filter ingero-%,$(CMDS)))
INST_HELPS    := $(CMDS:%=$(INST_GEN)/help/%)
INST_MAN1     := $(CMDS:%=$(INST_GEN)/man1/%.1)
INST_BASH     := $(CMDS:%=$(INST_GEN)/bash/%)
INST_ZSH      := $(CMDS:%=$(INST_GEN)/zsh/_%)
INST_DOCS     := README.md LICENSE format/SPEC.md $(wildcard docs/*.md docs/*.proto)
# MODE SOURCE DEST (under PREFIX), one file per line for docs/man/install.sh
INST_LIST      = $(foreach c,$(CMDS),0755 $(BIN)/$(c) bin/$(c)) \
	$(foreach c,$(CMDS),0644 $(INST_GEN)/man1/$(c).1 share/man/man1/$(c).1) \
	0644 $(INST_GEN)/man5/ingero-log.5 share/man/man5/ingero-log.5 \
	$(foreach c,$(CMDS),0644 $(INST_GEN)/bash/$(c) share/bash-completion/completions/$(c)) \
	$(foreach c,$(CMDS),0644 $(INST_GEN)/zsh/_$(c) share/zsh/site-functions/_$(c)) \
	$(foreach f,$(INST_DOCS),0644 $(f) share/doc/ingero/$(f)) \
	$(foreach f,$(FAKECUDA_LIBS),0644 $(f) libexec/ingero/$(notdir $(f))) \
	0755 $(FAKECUDA_DIR)/workload libexec/ingero/workload
inst_list = printf '%s %s %s\n' $(INST_LIST)
DEBDIR        ?= dist
DEB_VERSION   ?= $(VERSION)-1
DEB_MAINTAINER ?= $(or $(shell git log -1 --format='%an <%ae>' 2>/dev/null),ingero maintainers <ingero@example.org>)
DEB_WORK      := $(OUT)/deb

$(INST_GEN)/help/%: $(BIN)/%
	$(Q)mkdir -p $(@D)
	$(Q)$< --help >$@
$(INST_GEN)/man1/%.1: $(INST_GEN)/help/% docs/man/gen.py $$(wildcard docs/man/%.1.in)
	$(call msg,MAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 docs/man/gen.py man $* $< $(VERSION) $(INST_DATE) $(wildcard docs/man/$*.1.in) >$@
# the umbrella completes its commands' options too
$(INST_GEN)/bash/ingero $(INST_GEN)/zsh/_ingero: $(INST_HELPS) docs/man/gen.py
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 docs/man/gen.py $(if $(findstring /bash/,$@),bash,zsh) ingero $(INST_GEN)/help/ingero \
		$(foreach s,$(INST_SUBS),$(s)=$(INST_GEN)/help/ingero-$(s)) >$@
$(INST_GEN)/bash/%: $(INST_GEN)/help/% docs/man/gen.py
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 docs/man/gen.py bash $* $< >$@
$(INST_GEN)/zsh/_%: $(INST_GEN)/help/% docs/man/gen.py
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)python3 docs/man/gen.py zsh $* $< >$@

# man pages and completions, without installing them
man: $(INST_MAN1) $(INST_BASH) $(INST_ZSH)

# inst_run,DESTDIR,PREFIX: install the list there
inst_run = mkdir -p $(INST_GEN)/man5 && \
	sed -e 's,@DOCDIR@,$(2)/share/doc/ingero,g' -e 's/@VERSION@/$(VERSION)/' \
		-e 's/@DATE@/$(INST_DATE)/' docs/man/ingero-log.5 >$(INST_GEN)/man5/ingero-log.5 && \
	$(inst_list) | docs/man/install.sh install '$(1)' '$(2)'

install: $(BINS) $(INST_MAN1) $(INST_BASH) $(INST_ZSH) $(FAKECUDA)
	$(Q)$(call inst_run,$(DESTDIR),$(PREFIX))

uninstall:
	$(Q)$(inst_list) | docs/man/install.sh uninstall '$(DESTDIR)' '$(PREFIX)'

deb: $(BINS) $(INST_MAN1) $(INST_BASH) $(INST_ZSH) $(FAKECUDA)
	$(Q)rm -rf $(DEB_WORK)
	$(Q)($(call inst_run,$(abspath $(DEB_WORK))/debian/ingero,/usr)) >/dev/null
	$(call msg,DEB,$(DEBDIR)/ingero_$(DEB_VERSION)_$(shell dpkg --print-architecture 2>/dev/null).deb)
	$(Q)docs/man/deb.sh $(DEB_WORK) $(DEBDIR) $(DEB_VERSION) $(EPOCH) '$(DEB_MAINTAINER)' >/dev/null

deps:
	$(Q)tests/install-deps.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(BIN)/ingero demo incident

clean:
	rm -rf .output $(BIN)

# ---- make dist: a self-contained bundle to copy to a GPU node ----
# $(DIST)/ingero-VERSION-linux-x86_64.tar.gz: the programs built again
# into DIST_OUT with the same sources, layers and LDLIBS_<prog>, the
# recorder and the plain filters linked statically against glibc (the BPF
# object is in the recorder through its skeleton), plus the docs and
# SHA256SUMS.  Two runs from one tree give the same bytes: no build
# directory in the objects (-ffile-prefix-map), the archive's times from
# the last commit (cmd/ingero-record/dist.sh).
DIST         ?= dist
DIST_OUT     ?= $(OUT)/dist
# ingero-export and ingero-mcp need libcurl, whose static archive needs
# archives Debian does not ship (nghttp2, ssh2, gssapi, ldap, ...): dynamic
DIST_STATIC  := ingero ingero-record ingero-correlate ingero-merge ingero-symbolize
DIST_DYNAMIC := ingero-export ingero-mcp

dist:
	$(Q)$(MAKE) --no-print-directory OUT=$(abspath $(DIST_OUT)) BIN=$(abspath $(DIST_OUT))/bin \
		INGERO_DIST=1 $(addprefix $(abspath $(DIST_OUT))/bin/,$(DIST_STATIC) $(DIST_DYNAMIC))
	$(call msg,DIST,$(DIST)/ingero-$(VERSION)-linux-x86_64.tar.gz)
	$(Q)SOURCE_DATE_EPOCH=$(EPOCH) cmd/ingero-record/dist.sh \
		$(DIST)/ingero-$(VERSION)-linux-x86_64.tar.gz $(DIST_OUT)/bin \
		"$(DIST_STATIC)" "$(DIST_DYNAMIC)"

ifdef INGERO_DIST
# the build directories as fixed names in debug info, __FILE__ and BTF
DIST_MAP     := -ffile-prefix-map=$(CURDIR)=. -ffile-prefix-map=$(OUT)=OUT
ALL_CFLAGS   += $(DIST_MAP)
BPF_CFLAGS   += $(DIST_MAP)
# static: what the shared libdw/libelf bring along themselves, added
$(foreach p,$(DIST_STATIC),$(eval LDLIBS_$(p) += -static))
LDLIBS_ingero-record    += -llzma -lbz2 -lz
LDLIBS_ingero-symbolize += -llzma -lbz2 -lz
endif
