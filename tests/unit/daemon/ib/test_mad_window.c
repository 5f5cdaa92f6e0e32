/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/daemon/ib/test_mad_window.c: what the windowed MAD readers take as an
 * answer (daemon/ib/mad_window.c, mad_window_is_get_resp). libibmad's
 * IB_MAD_METHOD_F is the 7-bit method, so a GetResp (0x81) reads as Get
 * with the response bit: the AR probe and programmer compared the method
 * with 0x81 and so ignored every real answer (ibsim never answers ARInfo,
 * so no test saw it; its PMA answers showed it). */
#include "autoconf.h"

#include <check.h>
#include <string.h>

#include <infiniband/mad.h>

#include "daemon/ib/mad_window.h"
#include "lib/ar/ar_mad.h"
#include "tests/unit/fixtures/check_run.h"

/* A MAD header: class, method byte as on the wire (0x81: GetResp), attr. */
static void mad(uint8_t *buf, unsigned cls, unsigned method_byte, unsigned attr)
{
	memset(buf, 0, IB_MAD_SIZE);
	buf[0] = 1;                 /* BaseVersion */
	buf[1] = (uint8_t)cls;      /* MgmtClass */
	buf[2] = 1;                 /* ClassVersion */
	buf[3] = (uint8_t)method_byte;
	buf[16] = (uint8_t)(attr >> 8);
	buf[17] = (uint8_t)attr;
}

START_TEST(a_getresp_on_the_wire_is_an_answer)
{
	uint8_t b[IB_MAD_SIZE];

	mad(b, IB_SMI_DIRECT_CLASS, 0x81, AR_MAD_ATTR_INFO);
	ck_assert(mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_PERFORMANCE_CLASS, 0x81, IB_GSI_PORT_COUNTERS);
	ck_assert(mad_window_is_get_resp(b, IB_PERFORMANCE_CLASS, IB_GSI_PORT_COUNTERS));
}
END_TEST

START_TEST(a_get_another_class_or_another_attribute_is_not)
{
	uint8_t b[IB_MAD_SIZE];

	mad(b, IB_SMI_DIRECT_CLASS, 0x01, AR_MAD_ATTR_INFO);  /* the request itself */
	ck_assert(!mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_SMI_DIRECT_CLASS, 0x82, AR_MAD_ATTR_INFO);  /* not a Get's response */
	ck_assert(!mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_SMI_CLASS, 0x81, AR_MAD_ATTR_INFO);         /* LID-routed, not ours */
	ck_assert(!mad_window_is_get_resp(b, IB_SMI_DIRECT_CLASS, AR_MAD_ATTR_INFO));
	mad(b, IB_PERFORMANCE_CLASS, 0x81, IB_GSI_PORT_COUNTERS_EXT);
	ck_assert(!mad_window_is_get_resp(b, IB_PERFORMANCE_CLASS, IB_GSI_PORT_COUNTERS));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("mad_window");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, a_getresp_on_the_wire_is_an_answer);
	tcase_add_test(tc, a_get_another_class_or_another_attribute_is_not);
	suite_add_tcase(s, tc);
	return check_run(s);
}
