/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/fuzz/fuzz_counters_wire.c: arbitrary bytes as the counters reader's
 * answer (daemon/telemetry/counters_wire.c: what `loomd --read-counters`
 * writes and loomd reads back every interval), and each port read back
 * through the row packing the store keeps (lib/telemetry/counter_row.c);
 * then the same bytes as a stored packed row (a database written by
 * anyone).
 *
 * Invariants: the reader returns 0, -EPROTO or -ENOMEM, with a message on
 * failure; on success every port's counters fit their width, strings end
 * within their arrays, and writing the answer again and reading that gives
 * the same ports (the format says all that is read); a packed row unpacks
 * to what was packed; unpacking arbitrary bytes never reads past them and
 * gives counters within their widths.
 *
 * By hand: see fuzz_pma.c's header (link BUILD/tests/fuzz/bin/obj/libloomd.a
 * and libloom.a). */
#include "autoconf.h"

#include <errno.h>

#include "tests/fuzz/fuzz.h"
#include "daemon/telemetry/counters_wire.h"
#include "lib/telemetry/counter_row.h"

const char fuzz_name[] = "fuzz_counters_wire";

static void check_row(const struct counter_row *r)
{
	for (int c = 0; c < PMA_N_COUNTERS; c++) {
		if (r->s.bits[c] > 64)
			fuzz_bug("counter %d is %u bits wide", c, r->s.bits[c]);
		if (r->s.bits[c] && r->s.v[c] > cdelta_max(r->s.bits[c]))
			fuzz_bug("counter %d is past its width", c);
	}
}

static void round_trip_row(const struct counter_row *r)
{
	uint8_t packed[COUNTER_ROW_MAX];
	struct counter_row back;
	size_t n = counter_row_pack(r, packed);

	if (n > COUNTER_ROW_MAX || counter_row_unpack(packed, n, &back) != 0)
		fuzz_bug("a packed row does not unpack");
	for (int c = 0; c < PMA_N_COUNTERS; c++)
		if (back.s.bits[c] != r->s.bits[c] || (r->s.bits[c] && (back.s.v[c] != r->s.v[c] ||
		    back.d[c].delta != r->d[c].delta || back.d[c].state != r->d[c].state)))
			fuzz_bug("counter %d changed through packing", c);
}

static void check_answer(const struct counters_answer *a)
{
	struct counters_answer again;
	char *text = NULL, err[256] = "";
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	for (size_t i = 0; i < a->n_ports; i++) {
		const struct counters_port *p = &a->ports[i];
		struct counter_row r;

		fuzz_check_terminated(p->node, sizeof(p->node), "node");
		fuzz_check_terminated(p->reason, sizeof(p->reason), "reason");
		memset(&r, 0, sizeof(r));
		r.s = p->s;
		for (int c = 0; c < PMA_N_COUNTERS; c++)
			r.d[c] = cdelta_of(0, 0, p->s.v[c], p->s.bits[c]);
		check_row(&r);
		round_trip_row(&r);
		counters_wire_put_port(mem, p);
	}
	for (size_t i = 0; i < a->n_pmas; i++)
		counters_wire_put_pma(mem, &a->pmas[i]);
	for (size_t i = 0; i < a->n_sums; i++)
		counters_wire_put_sum(mem, &a->sums[i]);
	counters_wire_put_done(mem, &a->done);
	fclose(mem);
	if (counters_wire_read(text, len, &again, err, sizeof(err)) != 0)
		fuzz_bug("an answer written again is refused: %s", err);
	if (again.n_ports != a->n_ports || again.n_pmas != a->n_pmas || again.n_sums != a->n_sums)
		fuzz_bug("%zu/%zu/%zu ports/pmas/sums written, %zu/%zu/%zu read", a->n_ports,
			 a->n_pmas, a->n_sums, again.n_ports, again.n_pmas, again.n_sums);
	for (size_t i = 0; i < a->n_sums; i++)
		if (memcmp(&a->sums[i], &again.sums[i], sizeof(a->sums[i])))
			fuzz_bug("sum %zu changed through writing", i);
	for (size_t i = 0; i < a->n_ports; i++) {
		const struct counters_port *x = &a->ports[i], *y = &again.ports[i];

		if (x->guid != y->guid || x->port != y->port || x->lid != y->lid ||
		    x->answered != y->answered || x->same != y->same || strcmp(x->node, y->node) ||
		    strcmp(x->reason, y->reason) || (x->answered &&
		    memcmp(&x->s, &y->s, sizeof(x->s))) || x->cleared != y->cleared)
			fuzz_bug("port %zu changed through writing", i);
	}
	counters_answer_free(&again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct counters_answer a;
	struct counter_row r;
	char err[256] = "";
	int rc = counters_wire_read((const char *)data, size, &a, err, sizeof(err));

	if (rc != 0 && rc != -EPROTO && rc != -ENOMEM)
		fuzz_bug("counters_wire_read returned %d", rc);
	fuzz_check_rc(rc, err, "counters_wire_read");
	if (rc == 0)
		check_answer(&a);
	counters_answer_free(&a);
	rc = counters_wire_read_known((const char *)data, size, &a, err, sizeof(err));
	if (rc != 0 && rc != -EPROTO && rc != -ENOMEM)
		fuzz_bug("counters_wire_read_known returned %d", rc);
	fuzz_check_rc(rc, err, "counters_wire_read_known");
	if (rc == 0 && a.n_ports)
		fuzz_bug("what loomd hands a read has ports");
	counters_answer_free(&a);
	if (counter_row_unpack(data, size, &r) == 0) {
		check_row(&r);
		round_trip_row(&r);
	}
	return 0;
}
