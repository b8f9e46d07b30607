// SPDX-License-Identifier: MIT
/*
 * libsymtest.so: a shared library path for symtest.  hidden_helper is a
 * local function laid out after the exported symlib_entry, so in a copy
 * stripped down to .dynsym a lookup that took the nearest preceding
 * symbol would call its code "symlib_entry+N": the tests check that it
 * stays libsymtest.so+offset instead.  @name comments mark expected lines.
 */
extern volatile int sink;
typedef void (*probe_fn)(const char *label);

static void hidden_helper(probe_fn probe);

__attribute__((visibility("default"), noinline)) void symlib_entry(probe_fn probe)
{
	hidden_helper(probe); /* @lib_entry_call */
	sink++;
}

__attribute__((noinline)) static void hidden_helper(probe_fn probe)
{
	probe("lib_hidden"); /* @lib_hidden_call */
	sink++;
}
