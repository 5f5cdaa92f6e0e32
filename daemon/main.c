/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* daemon/main.c: loomd's command line. Everything else is in loomd.c. */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/ar/ar_read.h"
#include "daemon/ar/ar_write.h"
#include "daemon/ib/lft_read.h"
#include "daemon/ib/mcast_read.h"
#include "daemon/ib/pkey_read.h"
#include "daemon/qos/qos_ib_read.h"
#include "daemon/telemetry/counters_read.h"
#include "daemon/loomd.h"
#include "daemon/ib/walker.h"
#include "daemon/ib/discovery_part.h"
#include "daemon/http/front_child.h"
#include "daemon/http/front_proto.h"

/* Paths on the command line are taken relative to where loomd was started:
 * the daemon changes directory to / when it detaches, and reloads later. */
static const char *absolute(const char *path, char *buf, size_t len)
{
	char cwd[4096];

	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return path;
	if ((size_t)snprintf(buf, len, "%s/%s", cwd, path) >= len)
		return path;
	return buf;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: loomd [-f] [-d] [-c FILE] [--db PATH] [--socket PATH]\n"
		"       loomd -n [-c FILE] [-u USER]\n"
		"  -c, --config FILE  configuration (default /etc/loom/loom.yaml;\n"
		"                     if that file is missing, built-in defaults)\n"
		"  -f, --foreground   stay in the foreground, log to the configured target\n"
		"  -n, --check        check the configuration, print it normalized, exit\n"
		"  -u, --user USER    with -n: warn about each path loomd writes that USER,\n"
		"                     as loomd.service's User=, could not (default: you)\n"
		"  -d, --debug        log at debug level\n"
		"      --db PATH      database file (overrides database.path)\n"
		"      --socket PATH  control socket (overrides control.socket)\n"
		"  -h, --help         this help\n"
		"  -V, --version      print the version\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "check", no_argument, NULL, 'n' },
		{ "user", required_argument, NULL, 'u' },
		{ "debug", no_argument, NULL, 'd' },
		{ "db", required_argument, NULL, 'D' },
		{ "socket", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct loomd_options opt = { 0 };
	static char conf_buf[8192], db_buf[8192], sock_buf[8192];
	int check = 0, c;

	walker_init(argv[0]);
	/* loomd starts itself this way for each SMP walk (daemon/ib/walker.h). */
	if (argc > 1 && strcmp(argv[1], "--walk") == 0)
		return walker_main(argc - 1, argv + 1);
	/* ... and this way to walk a few switches again (daemon/ib/discovery_part.h). */
	if (argc > 1 && strcmp(argv[1], DISC_PART_MODE) == 0)
		return disc_part_main(argc - 1, argv + 1);
	/* ... and this way to serve HTTP, apart from the fabric (daemon/http/front.h). */
	if (argc > 1 && strcmp(argv[1], FRONT_MODE) == 0)
		return http_front_main(argc - 1, argv + 1);
	/* ... and this way to read the forwarding tables (daemon/ib/lft_read.h). */
	if (argc > 1 && strcmp(argv[1], "--read-lfts") == 0)
		return lft_read_main(argc - 1, argv + 1);
	/* ... and the partition key tables (daemon/ib/pkey_read.h). */
	if (argc > 1 && strcmp(argv[1], "--read-pkeys") == 0)
		return pkey_read_main(argc - 1, argv + 1);
	/* ... and the multicast groups and tables (daemon/ib/mcast_read.h). */
	if (argc > 1 && strcmp(argv[1], MCAST_READ_MODE) == 0)
		return mcast_read_main(argc - 1, argv + 1);
	/* ... and the QoS tables, SL2VL and VLArbitration (daemon/qos/qos_ib_read.h). */
	if (argc > 1 && strcmp(argv[1], "--read-qos") == 0)
		return qos_ib_read_main(argc - 1, argv + 1);
	/* ... and to probe the switches for adaptive routing (daemon/ar/ar_read.h). */
	if (argc > 1 && strcmp(argv[1], "--read-ar") == 0)
		return ar_read_main(argc - 1, argv + 1);
	/* ... and to read the ports' counters (daemon/telemetry/counters_read.h). */
	if (argc > 1 && (strcmp(argv[1], COUNTERS_READ_MODE) == 0 ||
			 strcmp(argv[1], COUNTERS_READ_CLEAR_MODE) == 0))
		return counters_read_main(argc - 1, argv + 1);
	/* ... and to program it (daemon/ar/ar_write.h). */
	if (argc > 1 && strcmp(argv[1], "--program-ar") == 0)
		return ar_write_main(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, "c:fndu:hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': opt.config_path = absolute(optarg, conf_buf, sizeof(conf_buf)); break;
		case 'f': opt.foreground = 1; break;
		case 'n': check = 1; break;
		case 'u': opt.check_user = optarg; break;
		case 'd': opt.debug = 1; break;
		case 'D': opt.db_path = absolute(optarg, db_buf, sizeof(db_buf)); break;
		case 'S': opt.socket_path = absolute(optarg, sock_buf, sizeof(sock_buf)); break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("loomd %s\n", PACKAGE_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "loomd: unexpected argument \"%s\"\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (opt.check_user && !check) {
		fprintf(stderr, "loomd: -u goes with -n (loomd.service sets the user loomd runs as)\n");
		usage(stderr);
		return 2;
	}
	return check ? loomd_check_config(&opt) : loomd_run(&opt);
}
