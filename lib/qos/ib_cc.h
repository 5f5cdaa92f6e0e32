/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/ib_cc.h: InfiniBand congestion control (IBA annex A10) as loom.yaml's
 * `ib_cc:` section holds it, its checks, the OpenSM options that apply it, and
 * the check of an OpenSM options file against it. Pure functions: no I/O.
 *
 * How it is applied: as OpenSM's own congestion-control options
 * (congestion_control, cc_key, cc_max_outstanding_mads, cc_sw_cong_setting_*,
 * cc_ca_cong_setting_*, cc_cct; OpenSM 3.3's osm_subnet.c parses them, its
 * congestion-control manager osm_congestion_control.c sends
 * SwitchCongestionSetting to every switch, CACongestionSetting and the
 * CongestionControlTable to every CA port after each successful routing).
 * loom writes EVERY option, defaults included: on SIGHUP OpenSM re-reads its
 * options file but keeps the last value of an option the file no longer
 * names, so a partial block would leave old settings behind. cc_key and
 * cc_max_outstanding_mads are read at OpenSM's start only.
 *
 * The fields and OpenSM's formats (what ibcc_opensm_options writes):
 *   enable                congestion_control TRUE|FALSE
 *   cc_key                cc_key 0x%016x             the CC_Key loom's MADs carry
 *   max_outstanding_mads  cc_max_outstanding_mads %u (>= 1)
 *   sw.control_map        cc_sw_cong_setting_control_map 0x%X: bit 0 victim
 *                         mask, 1 credit mask, 2 threshold + packet size,
 *                         3 credit starvation threshold + return delay,
 *                         4 marking rate (bits 5..31 reserved)
 *   sw.victim_mask,       ..._victim_mask / ..._credit_mask 0x + 64 hex digits:
 *   sw.credit_mask        bit p = switch port p (0..254; bit 255 reserved)
 *   sw.threshold          ..._threshold 0x%02X (4 bits: 0 none .. 15 aggressive)
 *   sw.packet_size        ..._packet_size %u (credits, 8 bits)
 *   sw.cs_threshold       ..._credit_starvation_threshold 0x%02X (4 bits)
 *   sw.cs_return_delay    ..._credit_starvation_return_delay SHIFT:MULT
 *   sw.marking_rate       ..._marking_rate %u (16 bits)
 *   ca.port_control       cc_ca_cong_setting_port_control 0x%04X (bit 0: SL/port
 *                         based instead of QP based; other bits reserved)
 *   ca.control_map        cc_ca_cong_setting_control_map 0x%04X (bit s: SL s)
 *   ca.sl[s]              cc_ca_cong_setting_ccti_timer S %u (16 bits),
 *                         ..._ccti_increase S %u, ..._trigger_threshold S %u,
 *                         ..._ccti_min S %u (8 bits each), one line per SL
 *   cct                   cc_cct S:M,S:M,... (0..128 entries; shift 2 bits,
 *                         multiplier 14 bits) or "(null)" for none; the
 *                         CCTI_Limit OpenSM sends is entries - 1
 * A CCT delay entry (cct, sw.cs_return_delay) is IBA's 16-bit
 * shift:multiplier: shift 0..3 in the top two bits, multiplier 0..16383. */
#ifndef LOOM_IB_CC_H
#define LOOM_IB_CC_H

#include <stddef.h>
#include <stdint.h>

/* loomd's block in OpenSM's options file: whole lines, newline included.
 * Its own markers, so that it lives beside ib_qos's block in one file. */
#define IBCC_BLOCK_BEGIN \
	"# ---- loom ib_cc begin: written by loomd (loom.yaml ib_cc), do not edit\n"
#define IBCC_BLOCK_END "# ---- loom ib_cc end\n"

#define IBCC_SLS        16
#define IBCC_MASK_BYTES 32   /* 256 port bits, big-endian as OpenSM stores them */
#define IBCC_CCT_MAX    128  /* OpenSM's OSM_CCT_ENTRY_MAX: it drops entries past it */
#define IBCC_SW_MAP_BITS 0x1Fu
#define IBCC_OSM_LINE_MAX 1022  /* OpenSM reads its options with fgets(line, 1023) */

struct ibcc_delay {
	uint8_t shift;        /* 0..3 */
	uint16_t multiplier;  /* 0..16383 */
};

struct ibcc_ca_sl {
	uint16_t ccti_timer;
	uint8_t ccti_increase;
	uint8_t trigger_threshold;
	uint8_t ccti_min;
};

struct ibcc_config {
	int set;                      /* the section is in loom.yaml */
	int enable;
	uint64_t cc_key;
	uint32_t max_outstanding_mads;
	struct {
		uint32_t control_map;
		uint8_t victim_mask[IBCC_MASK_BYTES];
		uint8_t credit_mask[IBCC_MASK_BYTES];
		uint8_t threshold;
		uint8_t packet_size;
		uint8_t cs_threshold;
		struct ibcc_delay cs_return_delay;
		uint16_t marking_rate;
	} sw;
	struct {
		uint16_t port_control;
		uint16_t control_map;
		struct ibcc_ca_sl sl[IBCC_SLS];
	} ca;
	unsigned n_cct;
	struct ibcc_delay cct[IBCC_CCT_MAX];
};

/* OpenSM's defaults (congestion control off, CC_Key 0, 500 MADs in flight,
 * everything else 0, no CCT), set = 0. */
void ibcc_defaults(struct ibcc_config *c);

/* The checks of a whole configuration; 0, or -EINVAL with "KEY: what" in err
 * (KEY as loom.yaml spells it: "ib_cc.switch.threshold", "ib_cc.ca.sls"...):
 *  - a value past its field's width (threshold 4 bits, CCT shift 2 bits ...);
 *  - a reserved bit set (sw.control_map bits 5.., mask bit 255, port_control
 *    bits 1..);
 *  - a switch setting given while its control_map bit is clear, a CA SL's
 *    setting while ca.control_map leaves that SL out (the device ignores
 *    both: the operator meant something else);
 *  - a CA SL's ccti_min past the table's last index (CCTI_Limit = entries - 1,
 *    0 without a table): the NIC would throttle from an entry that is not there;
 *  - a cc_cct line that OpenSM would cut (longer than IBCC_OSM_LINE_MAX). */
int ibcc_check(const struct ibcc_config *c, char *err, size_t errlen);

/* The opensm.conf lines that apply c, every option, '\n' terminated. Returns
 * the length snprintf would; IBCC_OPTIONS_MAX always fits. */
#define IBCC_OPTIONS_MAX 8192
int ibcc_opensm_options(const struct ibcc_config *c, char *buf, size_t len);

/* A 256-bit port mask as loom.yaml and OpenSM write it, "0x" and 64 hex
 * digits; and back from 1..64 hex digits with an optional 0x (OpenSM's
 * reading: right-aligned, big-endian). 0, or -EINVAL. */
void ibcc_mask_format(const uint8_t mask[IBCC_MASK_BYTES], char out[67]);
int ibcc_mask_parse(const char *s, uint8_t mask[IBCC_MASK_BYTES]);

/* "S:M" -> delay; 0 or -EINVAL (shift > 3, multiplier > 16383, not that form). */
int ibcc_delay_parse(const char *s, struct ibcc_delay *d);

/* Drift of an OpenSM options file (its whole text) from `options` (what
 * ibcc_opensm_options wrote): 0 when loom's block holds exactly those lines
 * and no line after it sets a congestion-control option again (OpenSM's last
 * value wins); else 1 with what differs in why ("cc_sw_cong_setting_threshold:
 * file has 0x03, loom.yaml 0x0F", "loom's ib_cc block is missing",
 * "line 12 sets cc_cct again after loom's block"). */
int ibcc_file_drift(const char *text, const char *options, char *why, size_t whylen);

#endif
