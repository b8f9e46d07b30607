# SPDX-License-Identifier: MIT
# ingero-symbolize reads ELF and DWARF with elfutils (libdw, libelf) and
# demangles C++ with libstdc++'s __cxa_demangle.
LAYERS_ingero-symbolize := symbolize cli codec base
LDLIBS_ingero-symbolize := -ldw -lelf -lstdc++

# The symbolize tests' subject (tests/symbolize/): symtest, a C and C++
# program with inlined and template functions, its shared library, and
# symtest-v2, the same sources built differently (another build-id).
# Fixed -O1 -g so inlining follows the always_inline/noinline marks; the
# library keeps source order, so its local function follows the exported one.
SYMTEST_DIR := $(OUT)/tests/symbolize
SYMTEST_CFLAGS = -g -O1 -fno-omit-frame-pointer $(WARN) $(SANFLAGS)
SYMTEST := $(SYMTEST_DIR)/symtest $(SYMTEST_DIR)/symtest-v2 $(SYMTEST_DIR)/libsymtest.so \
	$(SYMTEST_DIR)/ilogframes
all: $(SYMTEST)

# ilogframes: lists, splits and grows a log's frames (tests/symbolize/ilogframes.c)
$(SYMTEST_DIR)/ilogframes.o: tests/symbolize/ilogframes.c | $(SYMTEST_DIR)
	$(call msg,CC,$@)
	$(Q)$(call compile)
$(SYMTEST_DIR)/ilogframes: $(SYMTEST_DIR)/ilogframes.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(call link,$< $(LIB))

$(SYMTEST_DIR)/libsymtest.so: tests/symbolize/symlib.c | $(SYMTEST_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 $(SYMTEST_CFLAGS) -fno-toplevel-reorder -fPIC -shared \
		-Wl,-soname,libsymtest.so -o $@ $<

$(SYMTEST_DIR)/symtest-v2.o: SYMTEST_VARIANT := -DSYMTEST_VARIANT
$(SYMTEST_DIR)/symtest.o $(SYMTEST_DIR)/symtest-v2.o: tests/symbolize/symtest.c | $(SYMTEST_DIR)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) -std=gnu11 $(SYMTEST_CFLAGS) $(SYMTEST_VARIANT) $(DEPFLAGS) -c -o $@ $<
$(SYMTEST_DIR)/symtest_cpp.o: tests/symbolize/symtest_cpp.cc | $(SYMTEST_DIR)
	$(call msg,CXX,$@)
	$(Q)$(CXX) -std=gnu++17 $(SYMTEST_CFLAGS) $(DEPFLAGS) -c -o $@ $<
$(SYMTEST_DIR)/symtest $(SYMTEST_DIR)/symtest-v2: %: %.o $(SYMTEST_DIR)/symtest_cpp.o \
		$(SYMTEST_DIR)/libsymtest.so $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(SYMTEST_CFLAGS) -o $@ $< $(SYMTEST_DIR)/symtest_cpp.o -L$(SYMTEST_DIR) -lsymtest \
		-Wl,-rpath,'$$ORIGIN' $(LIB) $(LDLIBS_BASE) -lstdc++
-include $(addsuffix .d,$(SYMTEST_DIR)/ilogframes $(SYMTEST_DIR)/symtest $(SYMTEST_DIR)/symtest-v2 \
	$(SYMTEST_DIR)/symtest_cpp)

$(SYMTEST_DIR):
	$(Q)mkdir -p $@
