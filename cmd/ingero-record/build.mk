# SPDX-License-Identifier: MIT
# ingero-record: bpf/record.bpf.c -> $(OUT)/bpf/record.bpf.o (clang, CO-RE
# against the pinned bpf/vmlinux.h) -> $(OUT)/bpf/record.skel.h (bpftool),
# which the recorder's objects include.  `make vmlinux` regenerates
# bpf/vmlinux.h from the running kernel's BTF.

BPFTOOL ?= bpftool
LLVM_STRIP ?= llvm-strip
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86
# every header in bpf/: a list by hand missed the ones added later
REC_BPF_HDRS := $(wildcard bpf/*.h)

$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c $(REC_BPF_HDRS) | $(OUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Ibpf -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@ 2>/dev/null || true

$(OUT)/bpf/%.skel.h: $(OUT)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/bpf:
	$(Q)mkdir -p $@

DEPS_ingero-record := $(OUT)/bpf/record.skel.h
LAYERS_ingero-record := cli codec base
LDLIBS_ingero-record := -lbpf -ldw -lelf -lz -lpthread -lstdc++

.PHONY: vmlinux
vmlinux:
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > bpf/vmlinux.h.tmp
	mv bpf/vmlinux.h.tmp bpf/vmlinux.h
