/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_plan.c: arbitrary text into the cabling plan reader
 * (lib/validate/plan.c, plan_parse: a cabling CSV, or a topology file told
 * apart by its content), then the plan checked against a small fabric
 * (lib/validate/cabling.c) and settled (lib/validate/report.c): what loomd
 * does with validation.expected and loomctl with --expected.
 *
 * Invariants: a plan, or NULL with a "fuzz.csv:" message; every cable's
 * ports in 1..254 or, an Ethernet row's (issue 43), both named, no cable
 * from a port to itself (one name on two nodes
 * is two ends where the plan has their GUIDs); the plan written as CSV
 * (plan_write_csv) reads back to the same cables, or is refused for a node
 * without a description or two nodes under one (a topology file's); the check ends in 0 or
 * -EINVAL (a plan for another fabric, with a message), never with findings
 * when refused, and every finding has a subject; the Ethernet rows checked
 * against a small LLDP view (lib/validate/eth_cabling.c) end in 0 or -E2BIG
 * with a message, every finding with a subject. */
#include "autoconf.h"

#include <errno.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "lib/fabric/topo_file.h"
#include "lib/validate/cabling.h"
#include "lib/validate/eth_cabling.h"
#include "lib/validate/plan.h"
#include "lib/validate/report.h"

const char fuzz_name[] = "fuzz_plan";

static const char FABRIC[] =
	"Switch 8 \"sw1\"\n[1] \"hA\"[1]\n[2] \"hB\"[1]\n[3] \"sw2\"[3]\n[4] \"sw2\"[4]\n\n"
	"Switch 8 \"sw2\"\n[1] \"hC\"[1]\n[2] \"hD\"[1]\n\n"
	"Hca 2 \"hA\"\n\nHca 2 \"hB\"\n\nHca 2 \"hC\"\n\nHca 2 \"hD\"\n";

static void same_cables(const struct plan *p, const struct plan *q)
{
	if (p->n != q->n)
		fuzz_bug("%zu cables written, %zu read back", p->n, q->n);
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_cable *a = &p->cables[i], *b = &q->cables[i];

		if (strcmp(a->a, b->a) || strcmp(a->b, b->b) || a->a_port != b->a_port ||
		    a->b_port != b->b_port || a->width != b->width || a->speed != b->speed ||
		    a->eth != b->eth || strcmp(a->a_pname, b->a_pname) ||
		    strcmp(a->b_pname, b->b_pname))
			fuzz_bug("cable %zu: \"%s\"[%u] - \"%s\"[%u] read back as \"%s\"[%u] - "
				 "\"%s\"[%u]", i, a->a, a->a_port, a->b, a->b_port, b->a, b->a_port,
				 b->b, b->b_port);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fab *fab;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	struct plan *p = plan_parse("fuzz.csv", (const char *)data, size, err, sizeof(err)), *q;
	struct val_report r = { 0 };
	FILE *mem;
	int rc;

	if (!p) {
		if (strncmp(err, "fuzz.csv", 8) != 0)
			fuzz_bug("refused without naming the file: \"%s\"", err);
		return 0;
	}
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_cable *c = &p->cables[i];

		if (c->eth) {   /* issue 43: an Ethernet row, its ports named */
			if (c->a_port || c->b_port || !c->a_pname[0] || !c->b_pname[0])
				fuzz_bug("cable %zu: Ethernet ports %u \"%s\" and %u \"%s\"", i,
					 c->a_port, c->a_pname, c->b_port, c->b_pname);
			if (!strcmp(c->a, c->b) && !strcmp(c->a_pname, c->b_pname))
				fuzz_bug("cable %zu: from %s[%s] to itself", i, c->a, c->a_pname);
			continue;
		}
		if (c->a_port < 1 || c->a_port > 254 || c->b_port < 1 || c->b_port > 254)
			fuzz_bug("cable %zu: ports %u and %u", i, c->a_port, c->b_port);
		if (!strcmp(c->a, c->b) && c->a_port == c->b_port && c->a_guid == c->b_guid)
			fuzz_bug("cable %zu: from %s[%u] to itself", i, c->a, c->a_port);
	}
	if (!(mem = open_memstream(&buf, &len)))
		fuzz_bug("open_memstream");
	rc = plan_write_csv(p, mem, err, sizeof(err));
	fclose(mem);
	if (rc == 0) {
		if (!(q = plan_parse("fuzz.csv", buf, len, err, sizeof(err))))
			fuzz_bug("its own CSV refused: %s\n%s", err, buf);
		same_cables(p, q);
		plan_free(q);
	} else if (rc != -EINVAL || (!strstr(err, "no description") && !strstr(err, "are both"))) {
		fuzz_bug("plan_write_csv: %d (%s)", rc, err);
	}
	free(buf);
	if (!fab && !(fab = topo_file_parse("f.net", FABRIC, sizeof(FABRIC) - 1, "f", err,
					      sizeof(err))))
		fuzz_bug("the fixed fabric: %s", err);
	rc = cabling_check(p, fab, NULL, &r, err, sizeof(err));
	if (rc < 0 && (rc != -EINVAL || !err[0] || r.n))
		fuzz_bug("cabling_check: %d (%s) with %zu findings", rc, err, r.n);
	val_report_settle(&r);
	for (size_t i = 0; i < r.n; i++)
		if (!r.f[i].subject[0])
			fuzz_bug("finding %zu (%s) without a subject", i, val_code_name(r.f[i].code));
	val_report_clear(&r);
	{
		static const struct eth_switch_seen sw[] = { { "sw1", "" }, { "spine", "sonic-1" } };
		static const struct eth_port_seen ports[] = {
			{ "sw1", "Ethernet0", "etp1", 1, "sonic-1", "Ethernet4", "" },
			{ "spine", "Ethernet4", "", 1, "sw1", "etp1", "" },
			{ "sw1", "Ethernet4", "", 1, "", "eth0", "98:03:9b:00:00:01" },
		};
		struct eth_seen seen = { sw, 2, ports, 3 };
		size_t not_seen;

		err[0] = '\0';
		rc = eth_cabling_check(p, &seen, &r, &not_seen, err, sizeof(err));
		if (rc < 0 && (rc != -E2BIG || !err[0]))
			fuzz_bug("eth_cabling_check: %d (%s)", rc, err);
		for (size_t i = 0; i < r.n; i++)
			if (!r.f[i].subject[0])
				fuzz_bug("Ethernet finding %zu (%s) without a subject", i,
					 val_code_name(r.f[i].code));
		val_report_clear(&r);
	}
	plan_free(p);
	return 0;
}
