/* daemon/ar_probe.c: see ar_probe.h. */
#include "autoconf.h"
#include "ar_probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* MAD status bits 4:2 (IBA 13.4.7); bit 15 of a directed-route SMP's status
 * is its D bit, not an error. */
#define MAD_STATUS_CODE(s) (((unsigned)(s) >> 2) & 0x7)
#define MAD_CODE_BAD_VERSION 1
#define MAD_CODE_BAD_METHOD 2
#define MAD_CODE_BAD_ATTR 3

int ar_probe_info(struct ibmad_port *mp, const ib_dr_path_t *path, int get_cap,
		  struct ar_mad_info *out, int *status, char *err, size_t errlen)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	ib_portid_t id;
	int st = 0;
	uint8_t *res;

	memset(&id, 0, sizeof(id));
	memset(buf, 0, sizeof(buf));
	id.drpath = *path;
	/* libibmad sends directed route (class 0x81) for a portid without LID;
	 * on an error status it returns NULL and still stores the status
	 * (checked under ibsim: LFT block 5000 gives NULL and 0x1c); with no
	 * answer at all the status stays 0. */
	res = smp_query_status_via(buf, &id, AR_MAD_ATTR_INFO, ar_mad_info_am(get_cap), 0,
				   &st, mp);
	if (status)
		*status = st;
	if (st > 0 && (st & 0x7fff)) {
		unsigned code = MAD_STATUS_CODE(st);

		snprintf(err, errlen, "AdaptiveRoutingInfo: the switch answered status 0x%04x%s",
			 (unsigned)st, code == MAD_CODE_BAD_VERSION ? " (unsupported class version)"
			 : code == MAD_CODE_BAD_METHOD ? " (unsupported method)"
			 : code == MAD_CODE_BAD_ATTR ? " (unsupported method/attribute)" : "");
		if (code >= MAD_CODE_BAD_VERSION && code <= MAD_CODE_BAD_ATTR)
			return -EOPNOTSUPP;
		return -EPROTO;
	}
	if (!res) {
		snprintf(err, errlen, "AdaptiveRoutingInfo: no answer from the switch");
		return -EIO;
	}
	return ar_mad_info_decode(buf, sizeof(buf), out, err, errlen);
}
