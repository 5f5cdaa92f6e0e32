/* daemon/roce/config_roce.h: loom.yaml's roce: section (the lossless policy
 * of every switch) and switches: list, defined in config_roce.c. Every
 * module reads them as struct loom_config's roce, roce_interval,
 * roce_reapply and switches[]. */
#ifndef LOOMD_ROCE_CONFIG_ROCE_H
#define LOOMD_ROCE_CONFIG_ROCE_H

struct config_section;

extern const struct config_section roce_config;
extern const struct config_section roce_switches_config;

#endif
