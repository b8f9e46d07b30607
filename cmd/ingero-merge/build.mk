# SPDX-License-Identifier: MIT
# ingero-merge: the merge engine over the codec.
LAYERS_ingero-merge := merge cli codec base
