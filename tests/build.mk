# SPDX-License-Identifier: MIT
# Test-only artefacts, included by the Makefile.  Each part adds its
# outputs to TEST_EXTRAS, which `all` builds.

# Fake CUDA runtime, driver and NCCL libraries plus the workload that drives
# them (tests/fakecuda/README.md).  Frame pointers on, so user stacks taken
# in the probes walk through them; no identical-code folding, so the _ptsz
# twins keep bodies of their own instead of becoming jumps into the base;
# no sibling calls, so every entry point starts with `push %rbp` as the real
# libraries' do (the kernel emulates that instruction under a uprobe; a
# first instruction it must single-step makes each probe hit far dearer).
FAKECUDA_DIR := $(OUT)/tests/fakecuda
FAKECUDA_LIBS := $(FAKECUDA_DIR)/libcudart.so.13 $(FAKECUDA_DIR)/libcuda.so.1 \
	$(FAKECUDA_DIR)/libnccl.so.2
FAKECUDA := $(FAKECUDA_LIBS) $(FAKECUDA_DIR)/workload
# They are fixtures, not product code: built without the sanitizers of
# `make asan`, so a plain interpreter can load them and LeakSanitizer's
# exit-time helper does not appear in the workload's fork counts.
FAKECUDA_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -fno-omit-frame-pointer -fno-ipa-icf \
	-fno-optimize-sibling-calls
FAKECUDA_HDRS := tests/fakecuda/cudaapi.h tests/fakecuda/fake.h
TEST_EXTRAS += $(FAKECUDA)

all: $(TEST_EXTRAS)

$(FAKECUDA_DIR)/libcudart.so.13: tests/fakecuda/cudart.c $(FAKECUDA_DIR)/api-cudart.c
$(FAKECUDA_DIR)/libcuda.so.1: tests/fakecuda/cuda.c $(FAKECUDA_DIR)/api-cuda.c
$(FAKECUDA_DIR)/libnccl.so.2: tests/fakecuda/nccl.c tests/fakecuda/rendezvous.c \
	$(FAKECUDA_DIR)/api-nccl.c tests/fakecuda/rendezvous.h
$(FAKECUDA_LIBS): tests/fakecuda/fake.c $(FAKECUDA_HDRS) tests/build.mk | $(FAKECUDA_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -D_GNU_SOURCE $(FAKECUDA_CFLAGS) -fPIC -shared -fvisibility=hidden \
		-Itests/fakecuda -Wl,-soname,$(notdir $@) -o $@ $(filter %.c,$^) -lm -ldl -lpthread

# the several hundred extra API functions each fake library exports, for
# ingero-record --api (tests/fakecuda/genapi.sh)
$(FAKECUDA_DIR)/api-%.c: tests/fakecuda/genapi.sh | $(FAKECUDA_DIR)
	$(call msg,GEN,$@)
	$(Q)sh $< $* >$@.tmp && mv $@.tmp $@

# kernels.cc: the host stubs of the kernels it launches by name (C++ names)
$(FAKECUDA_DIR)/workload: tests/fakecuda/workload.c tests/fakecuda/kernels.cc $(FAKECUDA_HDRS) \
		| $(FAKECUDA_DIR)
	$(call msg,CC,$@)
	$(Q)$(CXX) -g -O1 -fno-omit-frame-pointer -c -o $@.kernels.o tests/fakecuda/kernels.cc
	$(Q)$(CC) -D_GNU_SOURCE $(FAKECUDA_CFLAGS) -o $@ $< $@.kernels.o -ldl -lpthread

$(FAKECUDA_DIR):
	$(Q)mkdir -p $@

# scensynth writes the synthesized scenarios of ingero-demo (cmd/ingero-demo/scenario.c).
TOOL_SRCS_scensynth := cmd/ingero-demo/scenario.c
# p99sim runs ingero-record's --p99-over rule (cmd/ingero-record/p99.c).
TOOL_SRCS_p99sim := cmd/ingero-record/p99.c

# bench/record's reference probe (bench/record/minprobe.c): the empty
# programs of bpf/minprobe.bpf.c attached each way the kernel offers.
MINPROBE := $(OUT)/bench/minprobe
TEST_EXTRAS += $(MINPROBE)
all: $(MINPROBE)
$(MINPROBE): bench/record/minprobe.c $(OUT)/bpf/minprobe.skel.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< -lbpf -lelf -lz
