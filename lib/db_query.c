/* lib/db_query.c: placeholder, being written */
#include "config.h"
typedef int loom_placeholder_db_query;
