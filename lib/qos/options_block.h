/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/options_block.h: loom's block in a file it shares with others
 * (OpenSM's options file: ib_qos's and ib_cc's lines between marker lines,
 * the rest the operator's). */
#ifndef LOOM_OPTIONS_BLOCK_H
#define LOOM_OPTIONS_BLOCK_H

/* old_text with the block between the lines begin and end replaced by
 * `options` (begin and end kept around it), or appended when it has none
 * (old_text NULL: the block alone). A new string, NULL when out of memory. */
char *options_block_set(const char *old_text, const char *begin, const char *end,
			const char *options);

#endif
