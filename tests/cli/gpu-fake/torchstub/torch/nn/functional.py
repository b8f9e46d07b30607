# SPDX-License-Identifier: MIT
def cross_entropy(a, b):
    from .. import T
    return T()
def layer_norm(t, s):
    from .. import T
    return T()
