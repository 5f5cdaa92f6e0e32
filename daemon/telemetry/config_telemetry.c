/* daemon/telemetry/config_telemetry.c: loom.yaml's `telemetry:` section.
 *
 *   telemetry:
 *     interval_s: 10     # read every cabled port's counters this often;
 *                        # 0: only when `loomctl counters --now` asks
 *
 * The reads use discovery's MAD limits (timeout_ms, retries, max_smps) and
 * the last sweep's fabric (no walk: only PMA Gets). */
#include "autoconf.h"

#include <stddef.h>

#include "daemon/core/config_parse.h"
#include "daemon/telemetry/telemetry.h"

static const struct cfg_key telemetry_keys[] = {
	CFG_KEY_INT("interval_s", telemetry_interval_s, 1, 86400, 1, 10),
};

const struct config_section telemetry_config = {
	.name = "telemetry", .keys = telemetry_keys,
	.n_keys = sizeof(telemetry_keys) / sizeof(telemetry_keys[0]),
};
