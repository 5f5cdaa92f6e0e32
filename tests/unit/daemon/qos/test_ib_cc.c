/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/qos/test_ib_cc.c: InfiniBand congestion control: loom.yaml's ib_cc
 * section (daemon/qos/config_ibcc.c), its checks, the OpenSM options it
 * becomes and the drift check of OpenSM's options file (lib/qos/ib_cc.c);
 * loom's block of that file as daemon/qos/osm_block.c mirrors and checks it.
 * That OpenSM's own parser reads those options back to the same values is
 * tests/integration/ib_cc.sh's (opensm -c). */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>
#include <jansson.h>

#include "daemon/core/config.h"
#include "daemon/core/file_atomic.h"
#include "daemon/qos/osm_block.h"
#include "daemon/loomd.h"
#include "lib/qos/options_block.h"
#include "daemon/qos/qos_ib.h"
#include "lib/qos/ib_cc.h"
#include "tests/unit/fixtures/check_run.h"
#include "daemon/qos/config_qos_ib.h"

static struct loom_config conf;
static char err[512];

static int load(const char *text)
{
	config_defaults(&conf);
	return config_load_string("t.yaml", text, strlen(text), &conf, err, sizeof(err));
}

static const char good[] =
	"ib_cc:\n"
	"  enable: true\n"
	"  cc_key: 0x10\n"
	"  max_outstanding_mads: 64\n"
	"  switch:\n"
	"    control_map: 0x1D\n"
	"    victim_mask: 0x1E\n"
	"    threshold: 15\n"
	"    packet_size: 8\n"
	"    credit_starvation_threshold: 3\n"
	"    credit_starvation_return_delay: \"1:100\"\n"
	"    marking_rate: 10\n"
	"  ca:\n"
	"    port_control: 1\n"
	"    control_map: 0x0005\n"
	"    sls:\n"
	"      - {sl: 0, ccti_timer: 150, ccti_increase: 1, trigger_threshold: 2, ccti_min: 1}\n"
	"      - {sl: 2, ccti_timer: 0x20, ccti_increase: 2}\n"
	"  cct: [\"0:0\", \"1:10\", \"2:20\"]\n"
	"  opensm_config: /etc/opensm/opensm.conf\n";

START_TEST(a_configuration_is_read_field_by_field)
{
	const struct ibcc_config *c = &ib_cc_conf_get(&conf)->ib_cc;

	ck_assert_msg(load(good) == 0, "%s", err);
	ck_assert(c->set && c->enable);
	ck_assert_uint_eq(c->cc_key, 0x10);
	ck_assert_uint_eq(c->max_outstanding_mads, 64);
	ck_assert_uint_eq(c->sw.control_map, 0x1D);
	ck_assert_uint_eq(c->sw.victim_mask[31], 0x1E);
	ck_assert_uint_eq(c->sw.victim_mask[30], 0);
	ck_assert_uint_eq(c->sw.threshold, 15);
	ck_assert_uint_eq(c->sw.packet_size, 8);
	ck_assert_uint_eq(c->sw.cs_threshold, 3);
	ck_assert_uint_eq(c->sw.cs_return_delay.shift, 1);
	ck_assert_uint_eq(c->sw.cs_return_delay.multiplier, 100);
	ck_assert_uint_eq(c->sw.marking_rate, 10);
	ck_assert_uint_eq(c->ca.port_control, 1);
	ck_assert_uint_eq(c->ca.control_map, 5);
	ck_assert_uint_eq(c->ca.sl[0].ccti_timer, 150);
	ck_assert_uint_eq(c->ca.sl[0].ccti_min, 1);
	ck_assert_uint_eq(c->ca.sl[2].ccti_timer, 0x20);
	ck_assert_uint_eq(c->ca.sl[2].ccti_increase, 2);
	ck_assert_uint_eq(c->ca.sl[1].ccti_timer, 0);
	ck_assert_uint_eq(c->n_cct, 3);
	ck_assert_uint_eq(c->cct[2].shift, 2);
	ck_assert_uint_eq(c->cct[2].multiplier, 20);
	ck_assert_str_eq(ib_cc_conf_get(&conf)->ib_cc_opensm_config, "/etc/opensm/opensm.conf");
}
END_TEST

START_TEST(no_section_leaves_congestion_control_alone_and_an_empty_one_is_opensms_default)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	ck_assert_msg(load("log:\n  level: info\n") == 0, "%s", err);
	ck_assert(!ib_cc_conf_get(&conf)->ib_cc.set);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(config_print(&conf, f), 0);
	fclose(f);
	ck_assert_msg(!strstr(text, "ib_cc"), "%s", text);
	free(text);
	ck_assert_msg(load("ib_cc:\n") == 0, "%s", err);
	ck_assert(ib_cc_conf_get(&conf)->ib_cc.set && !ib_cc_conf_get(&conf)->ib_cc.enable);
	ck_assert_uint_eq(ib_cc_conf_get(&conf)->ib_cc.max_outstanding_mads, 500);
	ck_assert_uint_eq(ib_cc_conf_get(&conf)->ib_cc.n_cct, 0);
}
END_TEST

/* loomd -n -v prints what operators paste back (fuzz_config's invariant). */
START_TEST(the_printed_configuration_reads_back_the_same)
{
	const char *const texts[] = { good, "ib_cc:\n", "ib_cc:\n  enable: false\n  cct: []\n" };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct loom_config first;
		char *text = NULL, *again = NULL;
		size_t len = 0, len2 = 0;
		FILE *f;

		ck_assert_msg(load(texts[i]) == 0, "%s", err);
		first = conf;
		f = open_memstream(&text, &len);
		ck_assert_int_eq(config_print(&first, f), 0);
		fclose(f);
		ck_assert_msg(load(text) == 0, "%s\n%s", err, text);
		ck_assert_msg(!memcmp(&ib_cc_conf_get(&first)->ib_cc, &ib_cc_conf_get(&conf)->ib_cc, sizeof(ib_cc_conf_get(&conf)->ib_cc)), "%s", text);
		ck_assert_str_eq(ib_cc_conf_get(&first)->ib_cc_opensm_config, ib_cc_conf_get(&conf)->ib_cc_opensm_config);
		f = open_memstream(&again, &len2);
		ck_assert_int_eq(config_print(&conf, f), 0);
		fclose(f);
		ck_assert_str_eq(text, again);
		free(text);
		free(again);
	}
}
END_TEST

START_TEST(bad_settings_are_refused_naming_the_key_and_its_line)
{
	static const struct {
		const char *yaml, *want;
	} bad[] = {
		{ "ib_cc:\n  switch:\n    threshold: 16\n", "t.yaml:3: ib_cc.switch.threshold:" },
		{ "ib_cc:\n  switch:\n    control_map: 0x20\n", "t.yaml:3: ib_cc.switch.control_map: 0x20 sets reserved" },
		{ "ib_cc:\n  switch:\n    control_map: 0x1\n    marking_rate: 5\n",
		  "t.yaml:4: ib_cc.switch.marking_rate: set, but control_map bit 4 is clear" },
		{ "ib_cc:\n  switch:\n    control_map: 0x1F\n    victim_mask: 0x8" "000000000000000000000000000000000000000000000000000000000000000\n",
		  "t.yaml:4: ib_cc.switch.victim_mask: bit 255 is reserved" },
		{ "ib_cc:\n  switch:\n    victim_mask: 0xZZ\n", "t.yaml:3: ib_cc.switch.victim_mask: \"0xZZ\" is not a port mask" },
		{ "ib_cc:\n  switch:\n    credit_starvation_return_delay: \"4:1\"\n",
		  "t.yaml:3: ib_cc.switch.credit_starvation_return_delay: \"4:1\" is not SHIFT:MULTIPLIER" },
		{ "ib_cc:\n  ca:\n    port_control: 2\n", "t.yaml:3: ib_cc.ca.port_control: 0x0002 sets reserved bits" },
		{ "ib_cc:\n  ca:\n    control_map: 0x1\n    sls:\n      - {sl: 1, ccti_timer: 10}\n",
		  "t.yaml:4: ib_cc.ca.sls: SL 1 has settings, but ca.control_map 0x0001 leaves SL 1 out" },
		{ "ib_cc:\n  ca:\n    control_map: 0x1\n    sls:\n      - {sl: 0, ccti_min: 3}\n  cct: [\"0:0\", \"1:1\"]\n",
		  "t.yaml:4: ib_cc.ca.sls: SL 0: ccti_min 3 is past the congestion control table's last index 1" },
		{ "ib_cc:\n  ca:\n    control_map: 0x3\n    sls:\n      - {sl: 1}\n      - {sl: 1}\n",
		  "t.yaml:6: ib_cc.ca.sls[1]: SL 1 is given twice" },
		{ "ib_cc:\n  ca:\n    sls:\n      - {ccti_timer: 1}\n", "t.yaml:4: ib_cc.ca.sls[0]: needs sl" },
		{ "ib_cc:\n  cct: [\"0:16384\"]\n", "t.yaml:2: ib_cc.cct[0]: \"0:16384\" is not SHIFT:MULTIPLIER" },
		{ "ib_cc:\n  max_outstanding_mads: 0\n", "t.yaml:2: ib_cc.max_outstanding_mads: 0 would" },
		{ "ib_cc:\n  cc_key: -1\n", "t.yaml:2: ib_cc.cc_key: \"-1\" is not an integer" },
		{ "ib_cc:\n  cc_key: 0x10000000000000000\n", "t.yaml:2: ib_cc.cc_key:" },
		{ "ib_cc:\n  nosuch: 1\n", "t.yaml:2: ib_cc.nosuch: unknown key" },
		{ "ib_cc:\n  opensm_config: relative.conf\n", "t.yaml:2: ib_cc.opensm_config: \"relative.conf\" is not an absolute path" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct loom_config before;

		ck_assert_msg(load(good) == 0, "%s", err);
		before = conf;
		ck_assert_msg(config_load_string("t.yaml", bad[i].yaml, strlen(bad[i].yaml), &conf, err,
						 sizeof(err)) == -EINVAL, "accepted: %s", bad[i].yaml);
		ck_assert_msg(strstr(err, bad[i].want) == err, "case %zu: got \"%s\", want \"%s...\"",
			      i, err, bad[i].want);
		/* the running configuration stays */
		ck_assert(!memcmp(&ib_cc_conf_get(&before)->ib_cc, &ib_cc_conf_get(&conf)->ib_cc, sizeof(ib_cc_conf_get(&conf)->ib_cc)));
	}
}
END_TEST

/* A full table of the largest entries: OpenSM's 1023-byte line would cut it. */
START_TEST(a_cct_line_opensm_would_cut_is_refused)
{
	struct ibcc_config c;

	ibcc_defaults(&c);
	c.n_cct = IBCC_CCT_MAX;
	for (unsigned i = 0; i < c.n_cct; i++)
		c.cct[i] = (struct ibcc_delay){ 3, 16383 };
	ck_assert_int_eq(ibcc_check(&c, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "ib_cc.cct: OpenSM's cc_cct line would be") == err, "%s", err);
	for (unsigned i = 0; i < c.n_cct; i++)
		c.cct[i] = (struct ibcc_delay){ 1, (uint16_t)i };
	ck_assert_msg(ibcc_check(&c, err, sizeof(err)) == 0, "%s", err);
}
END_TEST

START_TEST(opensm_options_are_every_option_in_opensms_formats)
{
	char buf[IBCC_OPTIONS_MAX];
	int n;

	ck_assert_msg(load(good) == 0, "%s", err);
	n = ibcc_opensm_options(&ib_cc_conf_get(&conf)->ib_cc, buf, sizeof(buf));
	ck_assert_int_lt(n, (int)sizeof(buf));
	ck_assert_int_eq(n, (int)strlen(buf));
	ck_assert_ptr_nonnull(strstr(buf, "congestion_control TRUE\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_key 0x0000000000000010\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_max_outstanding_mads 64\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_sw_cong_setting_control_map 0x1D\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_sw_cong_setting_victim_mask 0x"
				      "000000000000000000000000000000000000000000000000000000000000001E\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_sw_cong_setting_threshold 0x0F\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_sw_cong_setting_packet_size 8\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_sw_cong_setting_credit_starvation_threshold 0x03\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_sw_cong_setting_credit_starvation_return_delay 1:100\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_sw_cong_setting_marking_rate 10\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_ca_cong_setting_port_control 0x0001\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_ca_cong_setting_control_map 0x0005\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_ca_cong_setting_ccti_timer 0 150\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_ca_cong_setting_ccti_timer 2 32\n"));
	/* every SL is written, so that a SIGHUP'd OpenSM forgets old values */
	ck_assert_ptr_nonnull(strstr(buf, "cc_ca_cong_setting_ccti_min 15 0\n"));
	ck_assert_ptr_nonnull(strstr(buf, "cc_cct 0:0,1:10,2:20\n"));
	((struct ib_cc_conf *)config_section_edit(&conf, &qos_ibcc_config))->ib_cc.n_cct = 0;
	ibcc_opensm_options(&ib_cc_conf_get(&conf)->ib_cc, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "cc_cct (null)\n"));
}
END_TEST

START_TEST(the_largest_configuration_fits_the_options_buffer)
{
	struct ibcc_config c;
	char small[16];

	ibcc_defaults(&c);
	c.enable = 1;
	c.cc_key = UINT64_MAX;
	c.max_outstanding_mads = 1000000;
	c.sw.control_map = UINT32_MAX;
	memset(c.sw.victim_mask, 0xFF, sizeof(c.sw.victim_mask));
	for (unsigned sl = 0; sl < IBCC_SLS; sl++)
		c.ca.sl[sl] = (struct ibcc_ca_sl){ 65535, 255, 255, 255 };
	c.n_cct = IBCC_CCT_MAX;
	for (unsigned i = 0; i < c.n_cct; i++)
		c.cct[i] = (struct ibcc_delay){ 3, 16383 };
	{
		char buf[IBCC_OPTIONS_MAX];

		ck_assert_int_lt(ibcc_opensm_options(&c, buf, sizeof(buf)), IBCC_OPTIONS_MAX);
		/* the length is the same when it does not fit */
		ck_assert_int_eq(ibcc_opensm_options(&c, small, sizeof(small)), (int)strlen(buf));
		ck_assert_uint_eq(strlen(small), sizeof(small) - 1);
	}
}
END_TEST

START_TEST(port_masks_read_as_opensm_reads_them)
{
	uint8_t m[IBCC_MASK_BYTES];
	char out[67];

	ck_assert_int_eq(ibcc_mask_parse("0x1E", m), 0);
	ck_assert_uint_eq(m[31], 0x1E);
	ck_assert_int_eq(ibcc_mask_parse("123", m), 0);  /* odd digits: right-aligned */
	ck_assert_uint_eq(m[30], 0x01);
	ck_assert_uint_eq(m[31], 0x23);
	ibcc_mask_format(m, out);
	ck_assert_str_eq(out, "0x0000000000000000000000000000000000000000000000000000000000000123");
	ck_assert_int_eq(ibcc_mask_parse(out, m), 0);
	ck_assert_uint_eq(m[30], 0x01);
	ck_assert_int_eq(ibcc_mask_parse("", m), -EINVAL);
	ck_assert_int_eq(ibcc_mask_parse("0x", m), -EINVAL);
	ck_assert_int_eq(ibcc_mask_parse("0x1g", m), -EINVAL);
	ck_assert_int_eq(ibcc_mask_parse("0x1" "0000000000000000000000000000000000000000000000000000000000000000", m),
			 -EINVAL);  /* 65 digits */
}
END_TEST

/* Drift of the options file: what differs is named, never just "drifted". */
START_TEST(drift_of_the_options_file_names_what_differs)
{
	char opts[IBCC_OPTIONS_MAX], why[512];
	char *file, *edited;
	const char *at;

	ck_assert_msg(load(good) == 0, "%s", err);
	ibcc_opensm_options(&ib_cc_conf_get(&conf)->ib_cc, opts, sizeof(opts));
	file = options_block_set("# the operator's\nsweep_interval 10\ncc_cct 0:1\n",
				 IBCC_BLOCK_BEGIN, IBCC_BLOCK_END, opts);
	ck_assert_ptr_nonnull(file);
	/* An operator's line BEFORE the block is overridden by it: in policy. */
	ck_assert_msg(ibcc_file_drift(file, opts, why, sizeof(why)) == 0, "%s", why);

	ck_assert_int_eq(ibcc_file_drift("sweep_interval 10\n", opts, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "loom's ib_cc block is missing from the options file");

	edited = strdup(file);
	at = strstr(edited, "cc_sw_cong_setting_threshold 0x0F");
	ck_assert_ptr_nonnull(at);
	memcpy((char *)at + strlen("cc_sw_cong_setting_threshold 0x0"), "3", 1);
	ck_assert_int_eq(ibcc_file_drift(edited, opts, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "cc_sw_cong_setting_threshold: file has 0x03, loom.yaml 0x0F");
	free(edited);

	/* A line after the block wins in OpenSM: drift, with its line. */
	{
		size_t n = strlen(file) + 64;
		char *after = malloc(n);
		unsigned lines = 0;

		snprintf(after, n, "%scc_sw_cong_setting_marking_rate 99 # later\n", file);
		for (const char *p = file; *p; p++)
			lines += *p == '\n';
		ck_assert_int_eq(ibcc_file_drift(after, opts, why, sizeof(why)), 1);
		snprintf(err, sizeof(err), "line %u sets cc_sw_cong_setting_marking_rate again after "
			 "loom's block (OpenSM takes the last value): 99", lines + 1);
		ck_assert_str_eq(why, err);
		/* a comment or another option after it is no drift */
		snprintf(after, n, "%s# cc_cct 1:1\nlog_flags 0x03\n", file);
		ck_assert_msg(ibcc_file_drift(after, opts, why, sizeof(why)) == 0, "%s", why);
		free(after);
	}

	/* A line removed from the block. */
	edited = strdup(file);
	at = strstr(strstr(edited, IBCC_BLOCK_BEGIN), "cc_cct ");  /* loom's, not the operator's */
	((char *)at)[0] = '#';
	ck_assert_int_eq(ibcc_file_drift(edited, opts, why, sizeof(why)), 1);
	ck_assert_str_eq(why, "cc_cct: missing from loom's block (loom.yaml: 0:0,1:10,2:20)");
	free(edited);
	free(file);
}
END_TEST

/* osm_block with only what a mirror, a takeover and a check use: the
 * module is this node's own options text. */
static int mine_is_mod(void *mod, char *buf, size_t len)
{
	return snprintf(buf, len, "%s", (const char *)mod) < (int)len ? 0 : -1;
}

static const struct osm_block_ops block_ops = {
	.name = "ib_cc", .apply_cmd = "qos-ib-cc-apply",
	.begin = IBCC_BLOCK_BEGIN, .end = IBCC_BLOCK_END, .max = IBCC_OPTIONS_MAX,
	.mine = mine_is_mod, .drift = ibcc_file_drift,
};

static ino_t inode_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_ino;
}

/* A follower's mirror writes loom's block after the operator's lines, once
 * (the same record again leaves the file alone); the check then finds it
 * in policy, and a later line that overrides it; a state is noted only when
 * it changes. No OpenSM and no store: nothing is signalled or recorded. */
START_TEST(the_block_is_mirrored_once_then_checked)
{
	char dir[] = "/tmp/loom-osm-block-XXXXXX", path[256], opts[IBCC_OPTIONS_MAX], why[512];
	const char theirs[] = "# the operator's\nsweep_interval 10\n";
	struct event_base *base;
	struct osm_block *b;
	json_t *rec;
	char *text;
	ino_t ino;
	FILE *f;

	ck_assert_msg(load(good) == 0, "%s", err);
	ibcc_opensm_options(&ib_cc_conf_get(&conf)->ib_cc, opts, sizeof(opts));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/opensm.conf", dir);
	ck_assert_int_eq(file_write_atomic(path, theirs, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(base = event_base_new());
	b = osm_block_new(base, &block_ops, opts, NULL, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	osm_block_reconfigure(b, path, "");

	osm_block_check(b, opts, why, sizeof(why));
	ck_assert_str_eq(why, "loom's ib_cc block is missing from the options file");
	ck_assert_ptr_nonnull(rec = json_pack("{s:{s:s, s:s, s:s}}", "ib_cc", "options", opts,
					      "version", "0123456789abcdef", "by", "a"));
	osm_block_watch(b, rec, 0);
	ck_assert_ptr_nonnull(text = file_read_text(path, err, sizeof(err)));
	ck_assert_int_eq(strncmp(text, theirs, strlen(theirs)), 0);
	ck_assert_ptr_nonnull(strstr(text, IBCC_BLOCK_BEGIN));
	free(text);
	osm_block_check(b, opts, why, sizeof(why));
	ck_assert_str_eq(why, "");
	ino = inode_of(path);
	osm_block_watch(b, rec, 0);
	ck_assert(inode_of(path) == ino);  /* already so: not rewritten */
	osm_block_watch(b, rec, 1);        /* a takeover, the same options: no change */
	ck_assert(inode_of(path) == ino);

	ck_assert_ptr_nonnull(f = fopen(path, "a"));
	fputs("cc_cct 0:1\n", f);
	fclose(f);
	osm_block_check(b, opts, why, sizeof(why));
	ck_assert_ptr_nonnull(strstr(why, "sets cc_cct again after loom's block"));

	ck_assert_int_eq(osm_block_note(NULL, "ib_cc", path, NULL, ""), 0);
	ck_assert_int_eq(osm_block_note(NULL, "ib_cc", path, "", why), 1);
	ck_assert_int_eq(osm_block_note(NULL, "ib_cc", path, why, why), 0);
	ck_assert_int_eq(osm_block_note(NULL, "ib_cc", path, why, ""), 1);

	json_decref(rec);
	osm_block_free(b);
	event_base_free(base);
	unlink(path);
	rmdir(dir);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("ib_cc");
	TCase *tc = tcase_create("core");

	if (loomd_config_init() < 0)
		return 1;
	tcase_add_test(tc, a_configuration_is_read_field_by_field);
	tcase_add_test(tc, no_section_leaves_congestion_control_alone_and_an_empty_one_is_opensms_default);
	tcase_add_test(tc, the_printed_configuration_reads_back_the_same);
	tcase_add_test(tc, bad_settings_are_refused_naming_the_key_and_its_line);
	tcase_add_test(tc, a_cct_line_opensm_would_cut_is_refused);
	tcase_add_test(tc, opensm_options_are_every_option_in_opensms_formats);
	tcase_add_test(tc, the_largest_configuration_fits_the_options_buffer);
	tcase_add_test(tc, port_masks_read_as_opensm_reads_them);
	tcase_add_test(tc, drift_of_the_options_file_names_what_differs);
	tcase_add_test(tc, the_block_is_mirrored_once_then_checked);
	suite_add_tcase(s, tc);
	return check_run(s);
}
