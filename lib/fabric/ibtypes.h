/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/ibtypes.h: InfiniBand enumerations (node types, port states, widths,
 * speeds, MTUs) and their names, as loom stores and prints them. */
#ifndef LOOM_IBTYPES_H
#define LOOM_IBTYPES_H

#include <stddef.h>
#include <stdint.h>

/* Node types, numbered as in NodeInfo:NodeType. */
enum ibt_node_type {
	IBT_NODE_UNKNOWN = 0,
	IBT_NODE_CA = 1,
	IBT_NODE_SWITCH = 2,
	IBT_NODE_ROUTER = 3,
};

/* Link widths: the PortInfo:LinkWidth* bit encoding. */
#define IBT_WIDTH_1X   0x01
#define IBT_WIDTH_4X   0x02
#define IBT_WIDTH_8X   0x04
#define IBT_WIDTH_12X  0x08
#define IBT_WIDTH_2X   0x10

/* Link speeds: loom's own bitmask, one bit per IB data rate, so that the
 * classic (SDR..QDR), FDR10 and extended (FDR..XDR) fields fold into one. */
#define IBT_SPEED_SDR   0x001
#define IBT_SPEED_DDR   0x002
#define IBT_SPEED_QDR   0x004
#define IBT_SPEED_FDR10 0x008
#define IBT_SPEED_FDR   0x010
#define IBT_SPEED_EDR   0x020
#define IBT_SPEED_HDR   0x040
#define IBT_SPEED_NDR   0x080
#define IBT_SPEED_XDR   0x100

/* "ca", "switch", "router", "unknown"; parse returns IBT_NODE_UNKNOWN. */
const char *ibt_node_type_name(int type);
int ibt_node_type_parse(const char *name);

/* PortInfo:PortState 1..4: "down", "init", "armed", "active"; else "?". */
const char *ibt_port_state_name(int state);
int ibt_port_state_parse(const char *name);
/* PortInfo:PortPhysicalState 1..7: "sleep", "polling", "disabled",
 * "training", "linkup", "error-recovery", "phy-test". */
const char *ibt_phys_state_name(int state);
int ibt_phys_state_parse(const char *name);

/* Name of one width bit ("4x") or one speed bit ("HDR"); "?" if not one bit. */
const char *ibt_width_name(unsigned width);
const char *ibt_speed_name(unsigned speed);
/* A mask as a comma list, "1x,4x" / "SDR,DDR,QDR"; "" for 0. */
char *ibt_width_mask_str(unsigned mask, char *buf, size_t len);
char *ibt_speed_mask_str(unsigned mask, char *buf, size_t len);
/* Parse a name or comma list back to a mask; 0 if any part is unknown. */
unsigned ibt_width_parse(const char *s);
unsigned ibt_speed_parse(const char *s);
/* Lanes of a width bit (1, 2, 4, 8, 12) and the widest/fastest bit of a mask. */
int ibt_width_lanes(unsigned width);
unsigned ibt_width_best(unsigned mask);
unsigned ibt_speed_best(unsigned mask);
/* Line rate of one lane at a speed bit, in Gb/s (SDR 2.5 ... XDR 212.5: the
 * signalling rate, encoding included, on which a bit error rate counts);
 * 0 if not one bit. */
double ibt_lane_gbps(unsigned speed);

/* MTU enum 1..5 -> bytes 256..4096; 0 if unknown. */
int ibt_mtu_bytes(int mtu);
/* PortInfo:VLCap 1..5 -> number of data VLs (1, 2, 4, 8, 15); 0 if unknown. */
int ibt_vlcap_count(int vlcap);

/* "0x0002c90300a1b2c3" (always 16 hex digits); buf needs 19 bytes. */
char *ibt_guid_str(uint64_t guid, char *buf, size_t len);
/* Accepts "0x..." or bare hex; 0 on success, -EINVAL otherwise. */
int ibt_guid_parse(const char *s, uint64_t *guid);

#endif
