/* daemon/core/config.h: loomd's configuration, parsed from YAML (libyaml).
 * Parse errors name the file, line and key.
 *
 * struct loom_config is the value every module reads (each gets its copy at
 * start and at reload). Its sections are registered by the modules that
 * own them (config_parse.h): each parses, defaults, checks and prints only
 * its own fields; config.c walks the file and knows only core's sections
 * (log, database, control, plugins). */
#ifndef LOOMD_CONFIG_H
#define LOOMD_CONFIG_H

#include <limits.h>
#include <stdio.h>

#include "lib/util/log.h"
#include "lib/qos/qos_policy.h"
#include "lib/qos/ib_cc.h"
#include "lib/qos/ib_qos.h"
#include "lib/telemetry/port_alarms.h"

#define LOOM_DEFAULT_CONFIG  "/etc/loom/loom.yaml"
#define LOOM_DEFAULT_DB      "/var/lib/loom/loom.db"
#define LOOM_DEFAULT_SOCKET  "/run/loom/loomd.sock"
/* Where OpenSM's libloomosm.so reports (its LOSM_REPORT_SOCKET): keep equal. */
#define LOOM_DEFAULT_OSM_SOCKET "/run/loom/osm.sock"
#define LOOM_DEFAULT_PARTITIONS "/var/lib/loom/partitions.conf"
#define LOOM_DEFAULT_TOKENS "/etc/loom/tokens"
#define LOOM_MAX_SUBNETS     16
#define LOOM_NAME_LEN        64
/* Where switch plugins (NAME.so) are; configure passes $(pkglibdir)/plugins. */
#ifndef LOOM_DEFAULT_PLUGIN_DIR
#define LOOM_DEFAULT_PLUGIN_DIR "/usr/lib/loom/plugins"
#endif
#ifndef LOOM_DEFAULT_WEB_DIR   /* Makefile.am sets both; `make fuzz` builds without */
#define LOOM_DEFAULT_WEB_DIR "/usr/share/loom/web"
#endif
#define LOOM_MAX_SWITCHES    256
#define LOOM_ADDRESS_LEN     128
#define LOOM_HTTP_MAX_LISTEN 8
#define LOOM_HA_ENDPOINTS_LEN 1024

/* One subnet (one local HCA port) to sweep. */
struct loom_subnet_conf {
	char name[LOOM_NAME_LEN];   /* loom's name for it; default "<ca>/<port>" */
	char ca[LOOM_NAME_LEN];     /* local HCA, e.g. "mlx5_0" */
	int port;                   /* local port number, 1..254 */
};

/* One Ethernet switch managed through a plugin (loom.yaml `switches:`). */
struct loom_switch_conf {
	char name[LOOM_NAME_LEN];        /* unique; loom's name for it */
	char plugin[LOOM_NAME_LEN];      /* plugin file PLUGIN.so in plugins.dir */
	char address[LOOM_ADDRESS_LEN];  /* in the plugin's own form */
	char credentials[256];           /* file with the credentials, "" none */
	char options[LOOM_ADDRESS_LEN];  /* plugin options, "" none */
	struct qos_policy roce;          /* overrides: only roce.set fields */
};

struct loom_config {
	char path[PATH_MAX];            /* file it came from; "" for built-in defaults */

	/* log: */
	enum log_level log_level;       /* log.level: error|warning|notice|info|debug */
	enum log_target log_target;     /* log.target: stderr|syslog */

	/* database: */
	char db_path[PATH_MAX];         /* database.path */

	/* control: */
	char socket_path[PATH_MAX];     /* control.socket */
	char admin_group[LOOM_NAME_LEN];/* control.admin_group; "" = root only */
	int ctl_max_clients;            /* control.max_clients 16..512 */
	int ctl_max_per_uid;            /* control.max_clients_per_uid 1..512 */
	int ctl_max_output;             /* control.max_output_bytes 65536..1073741824 */
	int ctl_stall_s;                /* control.stall_timeout_s 1..3600 */
	int ctl_idle_s;                 /* control.idle_timeout_s 0 (never) or 10..86400 */
	int ctl_read_rate_s;            /* control.read_rate_s 0 (no limit) or 1..3600 */

	/* discovery: */
	int sweep_interval;             /* discovery.interval seconds; 0 = on demand only; 0 or 5..86400 */
	int mad_timeout_ms;             /* discovery.timeout_ms 1..60000 */
	int mad_retries;                /* discovery.retries 0..20 */
	int max_smps;                   /* discovery.max_smps 1..1024: MADs in flight per subnet */
	int discovery_follow;           /* discovery.follow: walk the switches OpenSM reports
					 * a change on at once (daemon/ib/sweep_follow.c) */
	int n_subnets;                  /* 0 = every local HCA port that is found */
	struct loom_subnet_conf subnets[LOOM_MAX_SUBNETS]; /* discovery.subnets */

	/* opensm: */
	char osm_socket_path[PATH_MAX]; /* opensm.report_socket: libloomosm.so's reports */
	int routing_threads;            /* opensm.threads: loomd's routing work (route
					 * check's metrics); 0 = the cores */
	int osm_read_tables;            /* opensm.read_tables: read the tables again
					 * after OpenSM changes them (routes.c) */

	/* plugins: */
	char plugin_dir[PATH_MAX];      /* plugins.dir */

	/* roce: the lossless policy of every switch (overrides below) */
	struct qos_policy roce;
	int roce_interval;              /* roce.interval: seconds between read-backs, 0 off */
	int roce_reapply;               /* roce.reapply: re-apply a drifted switch */

	/* tenants: job isolation (daemon/tenants/tenants.c) */
	char tenant_partitions_file[PATH_MAX];  /* tenants.partitions_file: loom writes it */
	char tenant_static_partitions[PATH_MAX]; /* tenants.static_partitions: operator's, "" none */
	char tenant_opensm_pid_file[PATH_MAX];  /* tenants.opensm_pid_file: "" = the SM's reports */
	int tenant_pkey_min;                    /* tenants.pkey_min..pkey_max: the pool */
	int tenant_pkey_max;
	int tenant_timeout_s;                   /* tenants.timeout_s: to confirm a change */
	int tenant_interval;                    /* tenants.interval: check them all, 0 off */
	int tenant_vlan_min;                    /* tenants.vlan_min..vlan_max: RoCE VLAN pool */
	int tenant_vlan_max;
	char tenant_users[256];                 /* tenants.users: "slurm,..." may change tenants */
	char tenant_groups[256];                /* tenants.groups: likewise, by group */
	char tenant_host_pattern[128];          /* tenants.host_pattern: ERE, group 1 = host */
	char tenant_host_map[PATH_MAX];         /* tenants.host_map: explicit map, "" none */
	int tenant_host_identity;               /* tenants.host_identity: enum hostmap_identity */
	int tenant_check_switch_ports;          /* tenants.check_switch_ports: 0 or 1 */

	/* ib_qos: the InfiniBand QoS policy (daemon/qos/config_ibqos.c); .set = 0: absent */
	struct ibqos_policy ib_qos;
	char ib_qos_opensm_config[PATH_MAX];    /* ib_qos.opensm_config: loom's block in it */

	/* ib_cc: InfiniBand congestion control through OpenSM (daemon/qos/config_ibcc.c);
	 * .set = 0: absent */
	struct ibcc_config ib_cc;
	char ib_cc_opensm_config[PATH_MAX];     /* ib_cc.opensm_config: loom's block in it */

	/* ar: programming adaptive routing (daemon/ar/config_ar.c) */
	int ar_program;                 /* ar.program: 1 lets loomd send AR Sets (default 0) */
	int ar_mode;                    /* ar.mode: enum rt_ar_mode, tree (default) or lag */
	unsigned ar_sl_mask;            /* ar.sls: the SLs under AR; 0xFFFF every SL */
	int ar_shield;                  /* ar.shield: fast link fault recovery where supported */
	int ar_after_reroute_s;         /* ar.after_reroute_s: program again this long after
					 * OpenSM's last LFT change (0: never by itself) */

	/* telemetry: port counters (daemon/telemetry/config_telemetry.c) */
	int telemetry_interval_s;       /* telemetry.interval_s: read every cabled port's
					 * counters this often; 0: only on request */
	struct port_thresholds telemetry_thresholds; /* telemetry.thresholds: alarms */
	int telemetry_clear_counters;   /* telemetry.clear_counters: PortCountersSet at 3/4 */
	int telemetry_max_answer_ports; /* telemetry.max_answer_ports: the most ports one
	                                 * whole-fabric `counters` answer gives */

	/* http: the HTTP listener and /metrics (daemon/http/config_http.c) */
	int http_n_listen;              /* http.listen: 0 = no listener (the default) */
	char http_listen[LOOM_HTTP_MAX_LISTEN][LOOM_ADDRESS_LEN]; /* "ADDR:PORT" each */
	int http_allow_remote;          /* http.allow_remote: a non-loopback listen address */
	int http_max_connections;       /* http.max_connections: open at once */
	int http_timeout_s;             /* http.timeout_s: idle / read / write timeout */
	int http_max_header_bytes;      /* http.max_header_bytes: a request's headers */
	int http_max_body_bytes;        /* http.max_body_bytes: a request's body */
	int http_max_per_peer;          /* http.max_connections_per_peer: one address */
	int http_header_timeout_s;      /* http.header_timeout_s: a whole request's arrival */
	int http_listen_backlog;        /* http.listen_backlog: the kernel's accept queue */
	char http_tls_cert[PATH_MAX];   /* http.tls.cert: PEM chain; "" = plain HTTP */
	char http_tls_key[PATH_MAX];    /* http.tls.key: PEM private key */
	char http_tls_client_ca[PATH_MAX]; /* http.tls.client_ca: "" = no client certs */
	int http_tls_client_required;   /* http.tls.client_cert: 0 optional, 1 required */
	char http_tls_ciphers[512];     /* http.tls.ciphers: TLS 1.2 suites, OpenSSL's syntax */
	int http_metrics_ports;         /* http.metrics_ports: 0 all, 1 errors */
	int http_metrics_min_xmit_wait; /* http.metrics_min_xmit_wait_per_s (errors mode) */
	int http_metrics_auth;          /* http.metrics_auth: /metrics wants a token */
	char http_web_root[PATH_MAX];   /* http.web_root: the web view's files ("" none) */
	char http_tokens_file[PATH_MAX]; /* http.tokens_file: the API's tokens (api_tokens.h) */

	/* ha: high availability on etcd (daemon/ha/config_ha.c); no endpoints: off */
	char ha_endpoints[LOOM_HA_ENDPOINTS_LEN]; /* ha.endpoints: "URL,URL,..." ("" off) */
	char ha_name[64];               /* ha.name: this node ("": the host name) */
	char ha_advertise[256];         /* ha.advertise: this node's REST API URL, for others */
	char ha_cluster[64];            /* ha.cluster: the keys under /loom/CLUSTER/ */
	int ha_ttl_s;                   /* ha.ttl_s: the leader's lease */
	int ha_timeout_ms;              /* ha.timeout_ms: one etcd request to one endpoint */
	int ha_poll_ms;                 /* ha.poll_ms: a follower reads the leader key */
	int ha_follower_discovery_interval; /* ha.follower_discovery_interval: s (0: 4 x
					     * discovery.interval) */
	char ha_tls_ca[PATH_MAX];       /* ha.tls.ca: CA of https:// endpoints ("" system) */
	char ha_tls_cert[PATH_MAX];     /* ha.tls.cert / key: client certificate ("" none) */
	char ha_tls_key[PATH_MAX];
	char ha_user[64];               /* ha.user: etcd authentication ("" none) */
	char ha_password_file[PATH_MAX]; /* ha.password_file: its password, first line */

	/* validation: the fabric checked at every sweep (daemon/validate/) */
	int validation_enabled;         /* validation.enabled: after every sweep */
	char validation_expected[PATH_MAX]; /* validation.expected: the cabling plan ("" none) */
	int validation_fat_tree;        /* validation.fat_tree: -1 auto, 0 no, 1 yes */

	/* slurm: Slurm's topology.conf kept true (daemon/slurm/config_slurm.c) */
	char slurm_topology_file[PATH_MAX]; /* slurm.topology_file: loom writes it, "" none */
	int slurm_topology_format;      /* slurm.topology_format: enum slurm_topo_format */
	int slurm_reconfigure;          /* slurm.reconfigure: scontrol reconfigure after */
	char slurm_subnet[LOOM_NAME_LEN]; /* slurm.subnet: whose fabric, "" the only one */
	char slurm_scontrol[PATH_MAX];  /* slurm.scontrol: the scontrol program */

	/* switches: */
	int n_switches;
	struct loom_switch_conf switches[LOOM_MAX_SWITCHES];
};

struct config_section;
/* Core's own sections, for the registration in daemon/loomd.c. */
extern const struct config_section config_log, config_database, config_control,
	config_plugins;

/* Fill *c with the built-in defaults of every registered section. */
void config_defaults(struct loom_config *c);

/* Parse `path` into *c, starting from the defaults. On error *c is left
 * untouched, -EINVAL (or -errno for I/O) is returned and err holds one line
 * "FILE:LINE: KEY: what is wrong". */
int config_load(const char *path, struct loom_config *c, char *err, size_t errlen);
/* The same from a string; `name` stands for the file name in messages. */
int config_load_string(const char *name, const char *text, size_t len,
		       struct loom_config *c, char *err, size_t errlen);

/* What loomd's start needs of the host, for `loomd -n` (the running daemon
 * never calls it: a reload keeps the database and sockets it has). The
 * database's directory takes files, or is missing one level only (the
 * start creates that one); each socket's path holds no other kind of
 * file and its nearest existing directory takes entries; plugins.dir
 * exists when switches are configured. 0, or -errno with one line
 * "FILE:LINE: KEY: what is wrong" (just "KEY: ..." when the value is not
 * the file's: a default or a command-line override). */
int config_check_host(const struct loom_config *c, char *err, size_t errlen);

/* Write the configuration as normalized YAML (every key, in the documented
 * order), such that config_load() of the output gives the same config. */
int config_print(const struct loom_config *c, FILE *out);

#endif
