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

.PHONY: all test unit asan fuzz bench install clean demo deps check-format dist
.DELETE_ON_ERROR:
.SECONDARY:

all: $(BINS) $(UNITS) $(TEST_TOOLS)

# Per-program extras (objects, libraries, BPF skeletons) live next to the
# program: cmd/<name>/build.mk may add to EXTRA_OBJS_<name>, LDLIBS_<name>
# and DEPS_<name>.  tests/build.mk adds test-only artefacts.
-include $(wildcard cmd/*/build.mk) $(wildcard tests/build.mk)

$(OUT)/lib/%.o: lib/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(DEPFLAGS) $(ALL_CFLAGS) -c $< -o $@

define layer_rule
$(call layer_a,$(1)): $(patsubst lib/%.c,$(OUT)/lib/%.o,$(call layer_srcs,$(1)))
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rule,$(l))))
-include $(LIB_OBJS:.o=.d)

# A program is every .c in its cmd/ directory, linked against the layers
# its build.mk names in LAYERS_<name> (put in LAYERS order here), and the
# libraries in its LDLIBS_<name>: each program links only what it uses.
prog_layers = $(filter $(LAYERS_$(1)),$(LAYERS))
prog_libs   = $(foreach l,$(call prog_layers,$(1)),$(call layer_a,$(l)))
.SECONDEXPANSION:
$(BIN)/%: $$(wildcard cmd/%/*.c) $$(wildcard cmd/%/*.h) $$(DEPS_%) $$(call prog_libs,$$*) | $(BIN)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CPPFLAGS) -Icmd/$* $(ALL_CFLAGS) -o $@ $(filter %.c,$^) $(EXTRA_OBJS_$*) \
		$(call prog_libs,$*) $(LDLIBS_$*) $(LDLIBS_BASE)

# Unit tests are white-box: a layer's own headers are on their path too.
UNIT_I := $(addprefix -Ilib/,$(filter-out export,$(LAYERS))) -Ilib/export
$(OUT)/tests/unit/%: tests/unit/%.c tests/unit/test.h $(LIB) | $(OUT)/tests/unit
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -Itests/unit $(UNIT_I) $(ALL_CFLAGS) -o $@ $< $(LIB) $(LDLIBS_BASE)

# A test tool is tests/tools/NAME.c plus the sources tests/build.mk names in
# TOOL_SRCS_NAME.
$(OUT)/tests/tools/%: tests/tools/%.c $$(TOOL_SRCS_$$*) $(wildcard tests/tools/*.h) $(LIB) | $(OUT)/tests/tools
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(addprefix -I,$(sort $(dir $(TOOL_SRCS_$*)))) $(ALL_CFLAGS) \
		-o $@ $(filter %.c,$^) $(LIB) $(LDLIBS_BASE)

$(OUT)/tests/unit $(OUT)/tests/tools $(BIN):
	$(Q)mkdir -p $@

# `make test`: unit tests, CLI tests, scenario tests; ends "N passed, N failed, N skipped".
test: all
	$(Q)INGERO_BIN=$(abspath $(BIN)) INGERO_OUT=$(abspath $(OUT)) INGERO_TESTS=$(abspath tests) tests/run.sh

# The same suite under ASan+UBSan, built apart from the normal build.  At
# -O1 gcc's flow-based warnings (maybe-uninitialized, format-truncation)
# see other paths than at -O2; the normal build is the warning gate, so
# here they stay warnings.  The real-recording demo scenarios are left out:
# they judge timing, which ASan distorts, and their code (recorder,
# correlate) runs under ASan in the record, scenario and unit cases.
asan:
	$(Q)INGERO_TEST_EXCLUDE="cli/ingero-demo/real_" \
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
FUZZ_SRCS_mcp_request   := $(filter-out %/main.c,$(wildcard cmd/ingero-mcp/*.c))
FUZZ_LDLIBS_mcp_request := -ljansson -lsqlite3 -lcurl -ldeflate
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

install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/

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
DIST_VERSION := $(shell sed -n 's/^\#define INGERO_VERSION "\(.*\)"/\1/p' lib/include/ingero/ilog.h)
# ingero-export and ingero-mcp need libcurl, whose static archive needs
# archives Debian does not ship (nghttp2, ssh2, gssapi, ldap, ...): dynamic
DIST_STATIC  := ingero ingero-record ingero-correlate ingero-merge ingero-symbolize
DIST_DYNAMIC := ingero-export ingero-mcp
DIST_EPOCH   := $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct 2>/dev/null),1700000000)

dist:
	$(Q)$(MAKE) --no-print-directory OUT=$(abspath $(DIST_OUT)) BIN=$(abspath $(DIST_OUT))/bin \
		INGERO_DIST=1 $(addprefix $(abspath $(DIST_OUT))/bin/,$(DIST_STATIC) $(DIST_DYNAMIC))
	$(call msg,DIST,$(DIST)/ingero-$(DIST_VERSION)-linux-x86_64.tar.gz)
	$(Q)SOURCE_DATE_EPOCH=$(DIST_EPOCH) cmd/ingero-record/dist.sh \
		$(DIST)/ingero-$(DIST_VERSION)-linux-x86_64.tar.gz $(DIST_OUT)/bin \
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
