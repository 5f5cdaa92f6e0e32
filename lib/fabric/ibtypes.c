/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/fabric/ibtypes.c: names of InfiniBand enumerations. */
#include "autoconf.h"
#include "lib/fabric/ibtypes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define N_ELEM(a) (sizeof(a) / sizeof((a)[0]))

static const char *node_types[] = { "unknown", "ca", "switch", "router" };
static const char *port_states[] = { "?", "down", "init", "armed", "active" };
static const char *phys_states[] = { "?", "sleep", "polling", "disabled", "training",
				     "linkup", "error-recovery", "phy-test" };

static const struct { unsigned bit; const char *name; int lanes; } widths[] = {
	{ IBT_WIDTH_1X, "1x", 1 }, { IBT_WIDTH_2X, "2x", 2 }, { IBT_WIDTH_4X, "4x", 4 },
	{ IBT_WIDTH_8X, "8x", 8 }, { IBT_WIDTH_12X, "12x", 12 },
};

/* In increasing data rate; a lane's line rate in Gb/s (IBTA spec, vol. 2). */
static const struct { unsigned bit; const char *name; double gbps; } speeds[] = {
	{ IBT_SPEED_SDR, "SDR", 2.5 }, { IBT_SPEED_DDR, "DDR", 5.0 },
	{ IBT_SPEED_QDR, "QDR", 10.0 }, { IBT_SPEED_FDR10, "FDR10", 10.3125 },
	{ IBT_SPEED_FDR, "FDR", 14.0625 }, { IBT_SPEED_EDR, "EDR", 25.78125 },
	{ IBT_SPEED_HDR, "HDR", 53.125 }, { IBT_SPEED_NDR, "NDR", 106.25 },
	{ IBT_SPEED_XDR, "XDR", 212.5 },
};

static int name_index(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *ibt_node_type_name(int type)
{
	return (type >= 0 && (size_t)type < N_ELEM(node_types)) ? node_types[type] : "unknown";
}

int ibt_node_type_parse(const char *name)
{
	int i = name_index(node_types, N_ELEM(node_types), name);

	return i < 0 ? IBT_NODE_UNKNOWN : i;
}

const char *ibt_port_state_name(int state)
{
	return (state > 0 && (size_t)state < N_ELEM(port_states)) ? port_states[state] : "?";
}

int ibt_port_state_parse(const char *name)
{
	int i = name_index(port_states, N_ELEM(port_states), name);

	return i < 0 ? 0 : i;
}

const char *ibt_phys_state_name(int state)
{
	return (state > 0 && (size_t)state < N_ELEM(phys_states)) ? phys_states[state] : "?";
}

int ibt_phys_state_parse(const char *name)
{
	int i = name_index(phys_states, N_ELEM(phys_states), name);

	return i < 0 ? 0 : i;
}

const char *ibt_width_name(unsigned width)
{
	for (size_t i = 0; i < N_ELEM(widths); i++)
		if (widths[i].bit == width)
			return widths[i].name;
	return "?";
}

const char *ibt_speed_name(unsigned speed)
{
	for (size_t i = 0; i < N_ELEM(speeds); i++)
		if (speeds[i].bit == speed)
			return speeds[i].name;
	return "?";
}

static void append(char *buf, size_t len, size_t *off, const char *s)
{
	int n = snprintf(buf + *off, len - *off, "%s%s", *off ? "," : "", s);

	if (n > 0 && *off + (size_t)n < len)
		*off += (size_t)n;
}

char *ibt_width_mask_str(unsigned mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_ELEM(widths); i++)
		if (mask & widths[i].bit)
			append(buf, len, &off, widths[i].name);
	return buf;
}

char *ibt_speed_mask_str(unsigned mask, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_ELEM(speeds); i++)
		if (mask & speeds[i].bit)
			append(buf, len, &off, speeds[i].name);
	return buf;
}

static unsigned parse_list(const char *s, int is_width)
{
	char tmp[128], *save = NULL;
	unsigned mask = 0;

	if (!s || !*s || strlen(s) >= sizeof(tmp))
		return 0;
	strcpy(tmp, s);
	for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned bit = 0;

		if (is_width) {
			for (size_t i = 0; i < N_ELEM(widths); i++)
				if (strcasecmp(widths[i].name, tok) == 0)
					bit = widths[i].bit;
		} else {
			for (size_t i = 0; i < N_ELEM(speeds); i++)
				if (strcasecmp(speeds[i].name, tok) == 0)
					bit = speeds[i].bit;
		}
		if (!bit)
			return 0;
		mask |= bit;
	}
	return mask;
}

unsigned ibt_width_parse(const char *s)
{
	return parse_list(s, 1);
}

unsigned ibt_speed_parse(const char *s)
{
	return parse_list(s, 0);
}

int ibt_width_lanes(unsigned width)
{
	for (size_t i = 0; i < N_ELEM(widths); i++)
		if (widths[i].bit == width)
			return widths[i].lanes;
	return 0;
}

double ibt_lane_gbps(unsigned speed)
{
	for (size_t i = 0; i < N_ELEM(speeds); i++)
		if (speeds[i].bit == speed)
			return speeds[i].gbps;
	return 0;
}

unsigned ibt_width_best(unsigned mask)
{
	unsigned best = 0;

	for (size_t i = 0; i < N_ELEM(widths); i++)
		if (mask & widths[i].bit)
			best = widths[i].bit; /* table is in increasing lanes */
	return best;
}

unsigned ibt_speed_best(unsigned mask)
{
	unsigned best = 0;

	for (size_t i = 0; i < N_ELEM(speeds); i++)
		if (mask & speeds[i].bit)
			best = speeds[i].bit;
	return best;
}

int ibt_mtu_bytes(int mtu)
{
	return (mtu >= 1 && mtu <= 5) ? 128 << mtu : 0;
}

int ibt_vlcap_count(int vlcap)
{
	static const int counts[] = { 0, 1, 2, 4, 8, 15 };

	return (vlcap >= 1 && vlcap <= 5) ? counts[vlcap] : 0;
}

char *ibt_guid_str(uint64_t guid, char *buf, size_t len)
{
	snprintf(buf, len, "0x%016" PRIx64, guid);
	return buf;
}

int ibt_guid_parse(const char *s, uint64_t *guid)
{
	char *end;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 16); /* accepts a 0x prefix */
	if (errno || *end || end == s || s[0] == '-')
		return -EINVAL;
	*guid = v;
	return 0;
}
