#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# slurm.sh with the hooks reaching loomd over HTTPS (loomctl --server): see slurm.sh.
LOOM_SLURM_VIA=https exec sh "$(dirname "$0")/slurm.sh" "$@"
