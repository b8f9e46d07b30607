# SPDX-License-Identifier: MIT
# No command: the usage goes to stderr and the exit status is 2.
ingero
