/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/telemetry/test_counters_wire.c: the counters reader's answer
 * (daemon/telemetry/counters_wire.c): what the child writes, loomd reads
 * back whole (descriptions with spaces, percent signs and non-ASCII bytes
 * included), and an answer that is not exactly the format is refused with
 * the number of its line, never half taken. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/telemetry/counters_wire.h"
#include "tests/unit/fixtures/check_run.h"

static char *write_answer(const struct counters_port *ports, size_t n, size_t *len)
{
	struct counters_done d = { .started = 1795000000.25, .finished = 1795000001.5,
				   .ports = n, .answered = 1, .mads = 9, .in_flight = 4,
				   .timeout_ms = 200, .retries = 3 };
	char *text = NULL;
	FILE *mem = open_memstream(&text, len);

	ck_assert_ptr_nonnull(mem);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(counters_wire_put_port(mem, &ports[i]), 0);
	ck_assert_int_eq(counters_wire_put_done(mem, &d), 0);
	ck_assert_int_eq(fclose(mem), 0);
	return text;
}

START_TEST(an_answer_is_read_back_whole)
{
	struct counters_port p[3];
	struct counters_answer a;
	char err[256] = "", *text;
	size_t len;

	memset(p, 0, sizeof(p));
	p[0].guid = 0xf452140300123456ULL;
	p[0].port = 36;
	p[0].lid = 0xbfff;
	p[0].is_switch = 1;
	p[0].tries = 2;
	snprintf(p[0].node, sizeof(p[0].node), "MF0;leaf 1:SX6036/U1 100%% \xc3\xa9");
	p[0].answered = 1;
	p[0].ext_error = COUNTERS_EXT_REFUSED;
	p[0].cleared = 1u << PMA_SYMBOL_ERR;
	p[0].clear_failed = 1u << PMA_XMIT_WAIT;
	p[0].s.bits[PMA_SYMBOL_ERR] = 16;
	p[0].s.v[PMA_SYMBOL_ERR] = 0xffff;
	p[0].s.bits[PMA_XMIT_DATA] = 64;
	p[0].s.v[PMA_XMIT_DATA] = UINT64_MAX;
	p[0].s.bits[PMA_XMIT_WAIT] = 32;
	p[0].s.v[PMA_XMIT_WAIT] = 0;
	p[1].guid = 2;
	p[1].port = 1;
	p[1].lid = 7;
	p[1].tries = 4;
	snprintf(p[1].reason, sizeof(p[1].reason), "no answer to PortCounters after 4 tries");
	p[2].guid = 3;
	p[2].port = 1;
	p[2].answered = 1;  /* a description and no counters at all */
	text = write_answer(p, 3, &len);
	ck_assert_msg(counters_wire_read(text, len, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(a.n_ports, 3);
	ck_assert_uint_eq(a.done.mads, 9);
	ck_assert_double_eq(a.done.finished, 1795000001.5);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(a.ports[i].guid, p[i].guid);
		ck_assert_uint_eq(a.ports[i].port, p[i].port);
		ck_assert_uint_eq(a.ports[i].lid, p[i].lid);
		ck_assert_int_eq(a.ports[i].is_switch, p[i].is_switch);
		ck_assert_uint_eq(a.ports[i].tries, p[i].tries);
		ck_assert_str_eq(a.ports[i].node, p[i].node);
		ck_assert_str_eq(a.ports[i].reason, p[i].reason);
		ck_assert_int_eq(a.ports[i].answered, p[i].answered);
		ck_assert_int_eq(a.ports[i].ext_error, p[i].ext_error);
		ck_assert_uint_eq(a.ports[i].cleared, p[i].cleared);
		ck_assert_uint_eq(a.ports[i].clear_failed, p[i].clear_failed);
		ck_assert(!memcmp(&a.ports[i].s, &p[i].s, sizeof(p[i].s)));
	}
	counters_answer_free(&a);
	free(text);
}
END_TEST

START_TEST(a_malformed_answer_is_refused_naming_its_line)
{
	static const struct {
		const char *text, *says;
	} bad[] = {
		{ "port 0x1 1 2 C 1 a 0 why\n", "cut short" },
		{ "port 0x1 1 2 C 1 a 0 why\ndone 1 2 1 0 1 1 200 3", "line 2: cut short" },
		{ "port 0x1 1 2 C 1 a 1 0 0 0 1 16:65536\ndone 1 2 1 1 1 1 200 3\n",
		  "line 1: SymbolErrorCounter" },
		{ "port 0x1 1 2 C 1 a 1 0 0 0 1 0:5\ndone 1 2 1 1 1 1 200 3\n", "width 0" },
		{ "port 0x1 1 2 C 1 a 1 0 0 0 3 16:5\ndone 1 2 1 1 1 1 200 3\n",
		  "LinkErrorRecoveryCounter is missing" },
		{ "port 0x1 1 2 C 1 a 1 0 0 0 1 16:5 8:1\ndone 1 2 1 1 1 1 200 3\n",
		  "more than the counters" },
		{ "port 0x1 255 2 C 1 a 0 why\ndone 1 2 1 0 1 1 200 3\n", "the port" },
		{ "port 0x1 1 2 X 1 a 0 why\ndone 1 2 1 0 1 1 200 3\n", "node type" },
		{ "port 0x1 1 2 C 1 a%4 0 why\ndone 1 2 1 0 1 1 200 3\n", "escape" },
		{ "port 0x1 1 -2 C 1 a 0 why\ndone 1 2 1 0 1 1 200 3\n", "the LID" },
		{ "hello\n", "line 1: \"hello\" is neither" },
		{ "done 1 2 1 0 1 1 200 3\n", "0 ports, its last line says 1" },
		{ "done 1 2 0 0 0 0 200 3\ndone 1 2 0 0 0 0 200 3\n", "line 2: a line after" },
		{ "done nan 2 0 0 0 0 200 3\n", "started" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct counters_answer a;
		char err[256] = "";

		ck_assert_msg(counters_wire_read(bad[i].text, strlen(bad[i].text), &a, err,
						 sizeof(err)) == -EPROTO, "case %zu taken", i);
		ck_assert_msg(strstr(err, bad[i].says), "case %zu: \"%s\" does not say \"%s\"", i,
			      err, bad[i].says);
		counters_answer_free(&a);
	}
}
END_TEST

/* What loomd hands the next read (the PMAs' capabilities and the switches'
 * sums): pma and sum lines only. */
START_TEST(pma_and_sum_lines_read_back_and_nothing_else_passes_for_them)
{
	struct counters_pma in[2] = { { 0xf452140300123456ULL, 0xbfff, 0x1600, (1u << 27) - 1,
					PMA_DA_ALL },
				      { 2, 7, 0, 0, 1u << PMA_DA_VL_XMIT_WAIT } };
	struct counters_sum sum;
	struct counters_answer k;
	char *text = NULL, err[256] = "";
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	memset(&sum, 0, sizeof(sum));
	sum.guid = 0xf452140300123456ULL;
	sum.lid = 0xbfff;
	sum.ports_mark = 0xdeadbeef;
	sum.s.bits[PMA_SYMBOL_ERR] = 16;
	sum.s.v[PMA_SYMBOL_ERR] = 65534;
	sum.s.bits[PMA_XMIT_WAIT] = 32;
	sum.s.v[PMA_XMIT_WAIT] = 4000000000u;
	ck_assert_ptr_nonnull(mem);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(counters_wire_put_pma(mem, &in[i]), 0);
	ck_assert_int_eq(counters_wire_put_sum(mem, &sum), 0);
	ck_assert_int_eq(fclose(mem), 0);
	ck_assert_msg(counters_wire_read_known(text, len, &k, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(k.n_pmas, 2);
	ck_assert(!memcmp(k.pmas, in, sizeof(in)));
	ck_assert_uint_eq(k.n_sums, 1);
	ck_assert(!memcmp(&k.sums[0], &sum, sizeof(sum)));
	counters_answer_free(&k);
	free(text);
	ck_assert_int_eq(counters_wire_read_known("pma 0x1 7 0 0 0\nport 0x1 1 2 C 1 a 0 why\n", 41,
						  &k, err, sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "line 2"), "%s", err);
	counters_answer_free(&k);
	ck_assert_int_eq(counters_wire_read_known("pma 0x1 7 10000 0 0\n", 20, &k, err,
						  sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "capability mask"), "%s", err);
	counters_answer_free(&k);
	/* A detail attribute past the four. */
	ck_assert_int_eq(counters_wire_read_known("pma 0x1 7 0 0 10\n", 17, &k, err,
						  sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "detail attributes refused"), "%s", err);
	counters_answer_free(&k);
	/* A sum's counter past its width, and a sum with more than it names. */
	ck_assert_int_eq(counters_wire_read_known("sum 0x1 7 ff 1 4:16\n", 20, &k, err,
						  sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "SymbolErrorCounter"), "%s", err);
	counters_answer_free(&k);
	ck_assert_int_eq(counters_wire_read_known("sum 0x1 7 ff 1 4:15 9\n", 22, &k, err,
						  sizeof(err)), -EPROTO);
	ck_assert_msg(strstr(err, "more than"), "%s", err);
	counters_answer_free(&k);
}
END_TEST

/* A port read with PortCountersExtended only behind an unchanged sum says
 * so ("same", answered 2), and reads back so; 3 is no answer. */
START_TEST(a_same_port_reads_back_same)
{
	struct counters_port p;
	struct counters_answer a;
	char *text = NULL, err[256] = "";
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	struct counters_done d = { .ports = 1, .answered = 1 };

	memset(&p, 0, sizeof(p));
	p.guid = 9;
	p.port = 3;
	p.lid = 4;
	p.is_switch = 1;
	p.tries = 1;
	snprintf(p.node, sizeof(p.node), "leaf 1");
	p.answered = 1;
	p.same = 1;
	p.s.bits[PMA_XMIT_DATA] = 64;
	p.s.v[PMA_XMIT_DATA] = 123456789012ULL;
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(counters_wire_put_port(mem, &p), 0);
	ck_assert_int_eq(counters_wire_put_done(mem, &d), 0);
	ck_assert_int_eq(fclose(mem), 0);
	ck_assert_msg(strstr(text, " 2 0 0 0 1000 64:123456789012\n"), "%s", text);
	ck_assert_msg(counters_wire_read(text, len, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(a.n_ports, 1);
	ck_assert_int_eq(a.ports[0].answered, 1);
	ck_assert_int_eq(a.ports[0].same, 1);
	ck_assert(!memcmp(&a.ports[0].s, &p.s, sizeof(p.s)));
	counters_answer_free(&a);
	free(text);
	ck_assert_int_eq(counters_wire_read("port 0x9 3 4 S 1 x 3 0 0 0 0\n"
					    "done 0 0 1 1 1 1 1 1\n", 49, &a, err, sizeof(err)),
			 -EPROTO);
	ck_assert_msg(strstr(err, "answered"), "%s", err);
	counters_answer_free(&a);
}
END_TEST

/* The detail counters ride on the port line after "d" and read back;
 * the details line tells a read which attributes to ask, and the done
 * line's count of their Gets reads back (an answer without one too). */
START_TEST(details_read_back_and_a_bad_one_is_refused)
{
	struct counters_port p;
	struct counters_answer a;
	char *text = NULL, err[256] = "";
	const char *bad;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	struct counters_done d = { .ports = 1, .answered = 1, .mads = 10, .detail_mads = 4 };

	memset(&p, 0, sizeof(p));
	p.guid = 9;
	p.port = 3;
	p.lid = 4;
	snprintf(p.node, sizeof(p.node), "h1");
	p.answered = 1;
	p.s.bits[PMA_SYMBOL_ERR] = 16;
	p.s.v[PMA_SYMBOL_ERR] = 7;
	p.ds.bits[PMA_D_DLID_MAPPING_ERR] = 16;
	p.ds.v[PMA_D_DLID_MAPPING_ERR] = 5;
	p.ds.bits[PMA_D_VL_FC_UPDATE_ERR + 15] = 2;
	p.ds.v[PMA_D_VL_FC_UPDATE_ERR + 15] = 3;
	ck_assert_ptr_nonnull(mem);
	ck_assert_int_eq(counters_wire_put_port(mem, &p), 0);
	ck_assert_int_eq(counters_wire_put_done(mem, &d), 0);
	ck_assert_int_eq(fclose(mem), 0);
	ck_assert_msg(strstr(text, " 1 16:7 d 20000000008 16:5 2:3\n"), "%s", text);
	ck_assert_msg(counters_wire_read(text, len, &a, err, sizeof(err)) == 0, "%s", err);
	ck_assert(!memcmp(&a.ports[0].ds, &p.ds, sizeof(p.ds)));
	ck_assert_uint_eq(a.done.detail_mads, 4);
	counters_answer_free(&a);
	free(text);
	/* A 2-bit counter at 4, and more details than the attributes have. */
	bad = "port 0x9 3 4 C 1 x 1 0 0 0 0 d 20000000000 2:4\ndone 0 0 1 1 1 1 1 1\n";
	ck_assert_int_eq(counters_wire_read(bad, strlen(bad), &a, err, sizeof(err)),
			 -EPROTO);
	ck_assert_msg(strstr(err, "PortVLXmitFlowCtlUpdateErrors15"), "%s", err);
	counters_answer_free(&a);
	bad = "port 0x9 3 4 C 1 x 1 0 0 0 0 d 40000000000 2:1\ndone 0 0 1 1 1 1 1 1\n";
	ck_assert_int_eq(counters_wire_read(bad, strlen(bad), &a, err, sizeof(err)),
			 -EPROTO);
	ck_assert_msg(strstr(err, "counters set"), "%s", err);
	counters_answer_free(&a);
	ck_assert_int_eq(counters_wire_read("port 0x9 3 4 C 1 x 1 0 0 0 0 d 1 32:5\n"
					    "done 0 0 1 1 1 1 1 1\n", 59, &a, err, sizeof(err)),
			 -EPROTO);
	ck_assert_msg(strstr(err, "PortLocalPhysicalErrors is wider than 16 bits"), "%s", err);
	counters_answer_free(&a);
	/* What loomd hands a read: which attributes, and nothing past them. */
	ck_assert_int_eq(counters_wire_read_known("details f\n", 10, &a, err, sizeof(err)), 0);
	ck_assert_uint_eq(a.details, PMA_DA_ALL);
	counters_answer_free(&a);
	ck_assert_int_eq(counters_wire_read_known("details 1f\n", 11, &a, err, sizeof(err)),
			 -EPROTO);
	counters_answer_free(&a);
	ck_assert_int_eq(counters_wire_read("details 1\ndone 0 0 0 0 1 1 1 1\n", 32, &a, err,
					    sizeof(err)), -EPROTO);
	counters_answer_free(&a);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("counters_wire");
	TCase *tc = tcase_create("counters_wire");

	tcase_add_test(tc, an_answer_is_read_back_whole);
	tcase_add_test(tc, a_malformed_answer_is_refused_naming_its_line);
	tcase_add_test(tc, pma_and_sum_lines_read_back_and_nothing_else_passes_for_them);
	tcase_add_test(tc, a_same_port_reads_back_same);
	tcase_add_test(tc, details_read_back_and_a_bad_one_is_refused);
	suite_add_tcase(s, tc);
	return check_run(s);
}
