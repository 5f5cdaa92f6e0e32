/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* lib/qos/ib_qos.c: see ib_qos.h. */
#include "autoconf.h"
#include "lib/qos/ib_qos.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ibqos_defaults(struct ibqos_policy *p)
{
	memset(p, 0, sizeof(*p));
	/* opensm(8): qos_max_vls 15, qos_high_limit 0,
	 * qos_vlarb_low 0:0,1:4,...,14:4, qos_vlarb_high 0:4,1:0,...,14:0,
	 * qos_sl2vl 0,1,...,14,7. */
	p->max_vls = 15;
	p->n_low = p->n_high = 15;
	for (unsigned i = 0; i < 15; i++) {
		p->low[i] = (struct ibqos_entry){ (uint8_t)i, i ? 4 : 0 };
		p->high[i] = (struct ibqos_entry){ (uint8_t)i, i ? 0 : 4 };
		p->sl2vl[i] = (uint8_t)i;
	}
	p->sl2vl[15] = 7;
}

static int qos_fail(enum ibqos_field *field, enum ibqos_field f, char *err, size_t errlen,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static int qos_fail(enum ibqos_field *field, enum ibqos_field f, char *err, size_t errlen,
		    const char *fmt, ...)
{
	va_list ap;

	if (field)
		*field = f;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* An arbitration table's weight of vl (the sum over its entries). */
static unsigned weight_of(const struct ibqos_entry *t, unsigned n, unsigned vl)
{
	unsigned w = 0;

	for (unsigned i = 0; i < n; i++)
		if (t[i].vl == vl)
			w += t[i].weight;
	return w;
}

static int check_table(const struct ibqos_policy *p, int high, enum ibqos_field *field,
		       char *err, size_t errlen)
{
	const struct ibqos_entry *t = high ? p->high : p->low;
	unsigned n = high ? p->n_high : p->n_low;

	for (unsigned i = 0; i < n; i++)
		if (t[i].weight && t[i].vl >= p->max_vls)
			return qos_fail(field, high ? IBQOS_F_HIGH : IBQOS_F_LOW, err, errlen,
					"ib_qos.%s[%u]: VL %u is not below max_vls %u",
					high ? "vlarb_high" : "vlarb_low", i, t[i].vl, p->max_vls);
	return 0;
}

int ibqos_check(const struct ibqos_policy *p, enum ibqos_field *field, char *err,
		size_t errlen)
{
	int rc;

	if (field)
		*field = IBQOS_F_NONE;
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++) {
		unsigned vl = p->sl2vl[sl];

		if (vl != IBQOS_VL_DROP && vl >= p->max_vls)
			return qos_fail(field, IBQOS_F_SL2VL, err, errlen,
					"ib_qos.sl2vl: SL %u goes to VL %u, not below max_vls %u",
					sl, vl, p->max_vls);
	}
	for (unsigned i = 0; i < p->n_classes; i++) {
		const struct ibqos_class *c = &p->classes[i];

		if (p->sl2vl[c->sl] == IBQOS_VL_DROP)
			return qos_fail(field, IBQOS_F_CLASSES, err, errlen,
					"ib_qos.classes.%s: SL %u is mapped to VL15 by ib_qos.sl2vl: "
					"its packets would be dropped", c->name, c->sl);
	}
	if ((rc = check_table(p, 1, field, err, errlen)) < 0 ||
	    (rc = check_table(p, 0, field, err, errlen)) < 0)
		return rc;
	for (unsigned vl = 0; vl < 15; vl++) {
		int used = -1;

		for (unsigned sl = 0; sl < IBQOS_SLS && used < 0; sl++)
			if (p->sl2vl[sl] == vl)
				used = (int)sl;
		if (used >= 0 && !weight_of(p->high, p->n_high, vl) &&
		    !weight_of(p->low, p->n_low, vl))
			return qos_fail(field, IBQOS_F_LOW, err, errlen,
					"ib_qos.vlarb_low: VL %u carries SL %d (ib_qos.sl2vl) but has "
					"weight 0 in vlarb_high and vlarb_low: it would never be sent",
					vl, used);
	}
	return 0;
}

int ibqos_class_sl(const struct ibqos_policy *p, const char *name)
{
	for (unsigned i = 0; i < p->n_classes; i++)
		if (!strcmp(p->classes[i].name, name))
			return p->classes[i].sl;
	return -1;
}

unsigned ibqos_layer_sls(unsigned n_layers)
{
	return n_layers > 1 ? IBQOS_SLS / n_layers : IBQOS_SLS;
}

unsigned ibqos_class_vls(const uint8_t map[IBQOS_SLS], unsigned k)
{
	unsigned v = 0;

	for (unsigned s = 0; s < k && s < IBQOS_SLS; s++)
		if (map[s] != IBQOS_VL_DROP && map[s] + 1u > v)
			v = map[s] + 1u;
	return v ? v : 1;
}

uint8_t ibqos_layered_sl(unsigned layer, unsigned n_layers, uint8_t hint)
{
	unsigned k = ibqos_layer_sls(n_layers);

	return (uint8_t)(layer * k + (hint < k ? hint : 0));
}

void ibqos_layered_sl2vl(const uint8_t map[IBQOS_SLS], unsigned n_layers,
			 uint8_t out[IBQOS_SLS])
{
	unsigned k = ibqos_layer_sls(n_layers), v = ibqos_class_vls(map, k);
	uint8_t class_map[IBQOS_SLS];

	if (n_layers <= 1) {
		memmove(out, map, IBQOS_SLS);
		return;
	}
	memcpy(class_map, map, sizeof(class_map));  /* out may be map */
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++) {
		unsigned l = sl / k, s = sl % k;

		out[sl] = l >= n_layers ? IBQOS_VL_DROP
			: class_map[s] == IBQOS_VL_DROP ? IBQOS_VL_DROP
			: (uint8_t)(l * v + class_map[s]);
	}
}

unsigned ibqos_layered_vlarb(const struct ibqos_entry *in, unsigned n, unsigned class_vls,
			     unsigned n_layers, struct ibqos_entry *out, unsigned cap)
{
	struct ibqos_entry class_t[IBQOS_VLARB_MAX];
	unsigned total = 0, layers = n_layers > 1 ? n_layers : 1;

	if (n > IBQOS_VLARB_MAX)
		n = IBQOS_VLARB_MAX;
	memcpy(class_t, in, n * sizeof(*in));  /* out may be in */
	memset(out, 0, cap * sizeof(*out));
	for (unsigned i = 0; i < n; i++) {
		if (!class_t[i].weight || class_t[i].vl >= class_vls)
			continue;
		for (unsigned l = 0; l < layers; l++, total++)
			if (total < cap)
				out[total] = (struct ibqos_entry){
					(uint8_t)(l * class_vls + class_t[i].vl), class_t[i].weight };
	}
	return total;
}

int ibqos_combine(const struct ibqos_policy *p, unsigned n_vls, char *err, size_t errlen)
{
	struct ibqos_entry scratch[IBQOS_VLARB_MAX];
	unsigned k, v, n;

	if (!p->set || n_vls <= 1)
		return 0;
	k = ibqos_layer_sls(n_vls);
	v = ibqos_class_vls(p->sl2vl, k);
	for (unsigned i = 0; i < p->n_classes; i++)
		if (p->classes[i].sl >= k) {
			snprintf(err, errlen, "the routing engine uses %u VL layers, which leaves "
				 "each layer SLs 0-%u for the classes (16 / %u): ib_qos.classes.%s "
				 "is on SL %u; move it below SL %u", n_vls, k - 1, n_vls,
				 p->classes[i].name, p->classes[i].sl, k);
			return -EBUSY;
		}
	if (v * n_vls > p->max_vls) {
		snprintf(err, errlen, "the routing engine uses %u VL layers and ib_qos.sl2vl "
			 "maps SLs 0-%u to VLs 0-%u: each layer needs its own %u VL%s, %u in "
			 "all, but ib_qos.max_vls is %u; raise max_vls (the ports' VLCap "
			 "permitting) or map the classes onto fewer VLs", n_vls, k - 1, v - 1, v,
			 v == 1 ? "" : "s", v * n_vls, p->max_vls);
		return -EBUSY;
	}
	for (int high = 0; high < 2; high++) {
		n = ibqos_layered_vlarb(high ? p->high : p->low, high ? p->n_high : p->n_low, v,
					n_vls, scratch, IBQOS_VLARB_MAX);
		if (n > IBQOS_VLARB_LAYERED) {
			snprintf(err, errlen, "the routing engine uses %u VL layers: ib_qos.%s "
				 "would need %u entries (one per weighted class entry and layer), "
				 "more than the %u of one arbitration block", n_vls,
				 high ? "vlarb_high" : "vlarb_low", n, IBQOS_VLARB_LAYERED);
			return -EBUSY;
		}
	}
	return 0;
}

int ibqos_layered(const struct ibqos_policy *p, unsigned n_vls, struct ibqos_policy *out,
		  char *err, size_t errlen)
{
	unsigned v;
	int rc;

	*out = *p;
	if (n_vls <= 1)
		return 0;
	if ((rc = ibqos_combine(p, n_vls, err, errlen)) < 0)
		return rc;
	v = ibqos_class_vls(p->sl2vl, ibqos_layer_sls(n_vls));
	ibqos_layered_sl2vl(p->sl2vl, n_vls, out->sl2vl);
	out->n_high = ibqos_layered_vlarb(p->high, p->n_high, v, n_vls, out->high,
					  IBQOS_VLARB_MAX);
	out->n_low = ibqos_layered_vlarb(p->low, p->n_low, v, n_vls, out->low, IBQOS_VLARB_MAX);
	return 0;
}

/* Append with snprintf semantics: *used grows by what would be written. */
#define APPEND(...) do { \
	int n_ = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, \
			  __VA_ARGS__); \
	if (n_ > 0) \
		used += (size_t)n_; \
} while (0)

static void append_table(char *buf, size_t len, size_t *usedp, const char *name,
			 const struct ibqos_entry *t, unsigned n)
{
	size_t used = *usedp;

	APPEND("%s ", name);
	for (unsigned i = 0; i < n; i++)
		APPEND("%s%u:%u", i ? "," : "", t[i].vl, t[i].weight);
	if (n == 0)
		APPEND("0:0");
	APPEND("\n");
	*usedp = used;
}

int ibqos_opensm_options(const struct ibqos_policy *p, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	APPEND("qos TRUE\nqos_max_vls %u\nqos_high_limit %u\n", p->max_vls, p->high_limit);
	append_table(buf, len, &used, "qos_vlarb_high", p->high, p->n_high);
	append_table(buf, len, &used, "qos_vlarb_low", p->low, p->n_low);
	APPEND("qos_sl2vl ");
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		APPEND("%s%u", sl ? "," : "", p->sl2vl[sl]);
	APPEND("\n");
	return (int)used;
}

int ibqos_diff_sl2vl(const struct ibqos_policy *p, const uint8_t got[IBQOS_SLS])
{
	for (unsigned sl = 0; sl < IBQOS_SLS; sl++)
		if (got[sl] != p->sl2vl[sl])
			return (int)sl;
	return -1;
}

int ibqos_diff_vlarb(const struct ibqos_policy *p, int high, const struct ibqos_entry *got,
		     unsigned cap)
{
	const struct ibqos_entry *t = high ? p->high : p->low;
	unsigned n = high ? p->n_high : p->n_low;

	if (cap > IBQOS_VLARB_MAX)
		cap = IBQOS_VLARB_MAX;
	for (unsigned i = 0; i < cap; i++) {
		struct ibqos_entry want = i < n ? t[i] : (struct ibqos_entry){ 0, 0 };

		if (got[i].vl != want.vl || got[i].weight != want.weight)
			return (int)i;
	}
	/* A weighted entry the port has no room for is a difference too:
	 * OpenSM cannot program it, and its VL may starve. */
	for (unsigned i = cap; i < n; i++)
		if (t[i].weight)
			return (int)i;
	return -1;
}

void ibqos_sl2vl_decode(const uint8_t *data, uint8_t sl2vl[IBQOS_SLS])
{
	for (unsigned i = 0; i < IBQOS_SLS / 2; i++) {
		sl2vl[2 * i] = data[i] >> 4;
		sl2vl[2 * i + 1] = data[i] & 0xf;
	}
}

void ibqos_sl2vl_encode(const uint8_t sl2vl[IBQOS_SLS], uint8_t *data)
{
	for (unsigned i = 0; i < IBQOS_SLS / 2; i++)
		data[i] = (uint8_t)((sl2vl[2 * i] & 0xf) << 4 | (sl2vl[2 * i + 1] & 0xf));
}
