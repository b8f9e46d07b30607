# SPDX-License-Identifier: MIT
# ingero: the umbrella command, a table of names over the CLI layer.
LAYERS_ingero := cli codec base
