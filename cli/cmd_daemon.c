/* cli/cmd_daemon.c: placeholder, being written */
#include "autoconf.h"
typedef int loom_placeholder_cmd_daemon;
