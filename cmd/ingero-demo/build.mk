# SPDX-License-Identifier: MIT
# ingero-demo finds the fake CUDA libraries of this build (tests/build.mk)
# through a path compiled in; INGERO_FAKECUDA_DIR overrides it at run time,
# and an installed tree's (`make install`: ../libexec/ingero from the
# program's directory) comes before the build's.
# It analyzes what it records (lib/analyze) and synthesizes scenarios
# (cmd/ingero-demo/scenario.c, which tests/tools/scensynth shares).
LAYERS_ingero-demo := analyze cli codec base
DEPS_ingero-demo := $(OUT)/demo_config.h

$(OUT)/demo_config.h: cmd/ingero-demo/build.mk
	$(Q)mkdir -p $(@D)
	$(Q)printf '#define INGERO_FAKECUDA_DIR "%s"\n' "$(abspath $(OUT))/tests/fakecuda" > $@
