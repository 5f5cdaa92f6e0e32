/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* tests/unit/lib/slurm/test_slurm_node.c: `scontrol show node -o NAME` read
 * (lib/slurm/slurm_node.h), on lines captured from a real slurmctld 22.05.8
 * (Debian slurm-wlm; the set-up of tests/integration/slurm_drain.sh): IDLE,
 * IDLE+DRAIN, MIXED+DRAIN, ALLOCATED+DRAIN, DOWN+DRAIN, UNKNOWN+DRAIN,
 * IDLE+NOT_RESPONDING; reasons with spaces, brackets, a forged `[x@y]
 * Foo=bar` inside, a Comment= after; scontrol's "not found"; bad input.
 * And the node names loom passes to scontrol. */
#include "autoconf.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/slurm/slurm_node.h"
#include "tests/unit/fixtures/check_run.h"

/* The part every captured line of nodea shares, before State=. */
#define HEAD_A "NodeName=nodea Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=1 CPUTot=1 " \
	"CPULoad=0.78 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) " \
	"NodeAddr=127.0.0.1 NodeHostName=nodea Version=22.05.8 OS=Linux 6.18.44-fc-v657 #1 " \
	"SMP PREEMPT_DYNAMIC @0  RealMemory=1 AllocMem=0 FreeMem=21858 Sockets=1 Boards=1 "
#define TAIL_A " ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug  " \
	"BootTime=2026-11-29T05:21:34 SlurmdStartTime=2026-11-29T13:22:35 " \
	"LastBusyTime=2026-11-29T13:22:36 CfgTRES=cpu=1,mem=1M,billing=1 AllocTRES= " \
	"CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 " \
	"ExtSensorsTemp=n/s"

static const char idle[] = HEAD_A "State=IDLE" TAIL_A "\n";
static const char idle_drain[] = HEAD_A "State=IDLE+DRAIN" TAIL_A
	" Reason=loom: port 0x1234[1] errors 5/s [x] [root@2026-11-29T13:22:37]\n";
static const char alloc_drain[] = HEAD_A "State=ALLOCATED+DRAIN" TAIL_A
	" Reason=loom: busy [root@2026-11-29T13:22:41]\n";
static const char not_responding[] = HEAD_A "State=IDLE+NOT_RESPONDING" TAIL_A "\n";
static const char mixed_drain_comment[] =
	"NodeName=nodea Arch=x86_64 CoresPerSocket=1  CPUAlloc=1 CPUEfctv=2 CPUTot=2 CPULoad=0.85 "
	"AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 "
	"NodeHostName=nodea Version=22.05.8 OS=Linux 6.18.44-fc-v657 #1 SMP PREEMPT_DYNAMIC @0  "
	"RealMemory=1 AllocMem=0 FreeMem=21818 Sockets=2 Boards=1 State=MIXED+DRAIN "
	"ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug  "
	"BootTime=2026-11-29T05:21:33 SlurmdStartTime=2026-11-29T13:25:42 "
	"LastBusyTime=2026-11-29T13:25:43 CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES=cpu=1 "
	"CapWatts=n/a CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 "
	"ExtSensorsTemp=n/s Reason=loom: port leaf-3[17] BER 1e-9 > 1e-12 [x@y] Foo=bar "
	"[root@2026-11-29T13:25:47] Comment=a comment [me@now]\n";
static const char down_drain[] =
	"NodeName=nodeb CoresPerSocket=1  CPUAlloc=0 CPUEfctv=2 CPUTot=2 CPULoad=0.85 "
	"AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 "
	"NodeHostName=nodeb  RealMemory=1 AllocMem=0 FreeMem=21818 Sockets=2 Boards=1 "
	"State=DOWN+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A "
	"Partitions=debug  BootTime=None SlurmdStartTime=None LastBusyTime=2026-11-29T13:25:46 "
	"CfgTRES=cpu=2,mem=1M,billing=2 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 "
	"ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s "
	"Reason=loom: y [root@2026-11-29T13:25:48]\n";
static const char unknown_drain_ops[] =
	"NodeName=nodeb CoresPerSocket=1  CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=N/A "
	"AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 "
	"NodeHostName=nodeb  RealMemory=1 AllocMem=0 FreeMem=N/A Sockets=1 Boards=1 "
	"State=UNKNOWN+DRAIN ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A "
	"Partitions=debug  BootTime=None SlurmdStartTime=None LastBusyTime=Unknown "
	"CfgTRES=cpu=1,mem=1M,billing=1 AllocTRES= CapWatts=n/a CurrentWatts=0 AveWatts=0 "
	"ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s "
	"Reason=maintenance by ops [root@2026-11-29T13:22:37]\n";

static struct slurm_node parse_ok(const char *text, const char *name)
{
	struct slurm_node n;
	char err[512] = "";

	ck_assert_msg(slurm_node_parse(text, name, &n, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(n.name, name);
	return n;
}

/* text read as node `name`: its state, reason, mark ([user@time]) and flags */
static void expect(const char *text, const char *name, const char *state, const char *reason,
		   const char *by, int drained, int down)
{
	struct slurm_node n = parse_ok(text, name);

	ck_assert_str_eq(n.state, state);
	ck_assert_str_eq(n.reason, reason);
	ck_assert_str_eq(n.reason_by, by);
	ck_assert_int_eq(n.drained, drained);
	ck_assert_int_eq(n.down, down);
}

START_TEST(an_idle_node_is_neither_drained_nor_down_and_has_no_reason)
{
	expect(idle, "nodea", "IDLE", "", "", 0, 0);
	expect(not_responding, "nodea", "IDLE+NOT_RESPONDING", "", "", 0, 0);
}
END_TEST

START_TEST(a_drained_node_has_its_reason_without_slurms_user_and_time)
{
	/* brackets inside the reason stay; Slurm's [user@time] goes */
	expect(idle_drain, "nodea", "IDLE+DRAIN", "loom: port 0x1234[1] errors 5/s [x]",
	       "root@2026-11-29T13:22:37", 1, 0);
	expect(alloc_drain, "nodea", "ALLOCATED+DRAIN", "loom: busy", "root@2026-11-29T13:22:41",
	       1, 0);
	ck_assert(slurm_node_reason_is_loom(parse_ok(idle_drain, "nodea").reason));
}
END_TEST

START_TEST(a_mixed_draining_node_keeps_a_forged_mark_and_stops_before_comment)
{
	expect(mixed_drain_comment, "nodea", "MIXED+DRAIN",
	       "loom: port leaf-3[17] BER 1e-9 > 1e-12 [x@y] Foo=bar", "root@2026-11-29T13:25:47",
	       1, 0);
}
END_TEST

START_TEST(down_and_operator_drained_nodes_are_told_apart)
{
	expect(down_drain, "nodeb", "DOWN+DRAIN", "loom: y", "root@2026-11-29T13:25:48", 1, 1);
	expect(unknown_drain_ops, "nodeb", "UNKNOWN+DRAIN", "maintenance by ops",
	       "root@2026-11-29T13:22:37", 1, 0);
	ck_assert(!slurm_node_reason_is_loom(parse_ok(unknown_drain_ops, "nodeb").reason));
}
END_TEST

START_TEST(other_lines_and_other_nodes_are_skipped)
{
	char text[4096];
	struct slurm_node n;
	char err[512];

	snprintf(text, sizeof(text), "scontrol: warning: something\n%s%s", down_drain, idle_drain);
	n = parse_ok(text, "nodea");
	ck_assert_str_eq(n.state, "IDLE+DRAIN");
	/* nodeb's line does not answer for node (a prefix of its name) */
	ck_assert_int_eq(slurm_node_parse(down_drain, "node", &n, err, sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(scontrol_not_found_is_enoent_and_garbage_is_einval)
{
	struct slurm_node n;
	char err[512];

	ck_assert_int_eq(slurm_node_parse("Node nosuch not found\n", "nosuch", &n, err,
					  sizeof(err)), -ENOENT);
	ck_assert_str_eq(err, "Node nosuch not found");
	/* another node's "not found" is not this one's */
	ck_assert_int_eq(slurm_node_parse("Node nosuchx not found\n", "nosuch", &n, err,
					  sizeof(err)), -EINVAL);
	ck_assert_int_eq(slurm_node_parse("", "nodea", &n, err, sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "(none)"));
	ck_assert_int_eq(slurm_node_parse("slurm_load_node error: Unable to contact slurm "
					  "controller (connect failure)\n", "nodea", &n, err,
					  sizeof(err)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "Unable to contact"));
	ck_assert_ptr_null(strchr(err, '\n'));
	/* a line without State= */
	ck_assert_int_eq(slurm_node_parse("NodeName=nodea Arch=x86_64 Reason=x\n", "nodea", &n,
					  err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(slurm_node_parse("NodeName=nodea State=\n", "nodea", &n, err,
					  sizeof(err)), -EINVAL);
	/* a value that only ends in State= is not the key */
	ck_assert_int_eq(slurm_node_parse("NodeName=nodea OS=xState=IDLE\n", "nodea", &n, err,
					  sizeof(err)), -EINVAL);
}
END_TEST

START_TEST(a_reason_without_a_mark_runs_to_the_line_end)
{
	expect("NodeName=n1 State=IDLE+DRAIN Reason=Not responding\r\n", "n1", "IDLE+DRAIN",
	       "Not responding", "", 1, 0);
}
END_TEST

START_TEST(only_single_plain_node_names_go_to_scontrol)
{
	ck_assert(slurm_node_name_ok("host-0000"));
	ck_assert(slurm_node_name_ok("gpu001.rack_2"));
	ck_assert(!slurm_node_name_ok(""));
	ck_assert(!slurm_node_name_ok("-n"));
	ck_assert(!slurm_node_name_ok("gpu[001-004]"));
	ck_assert(!slurm_node_name_ok("a,b"));
	ck_assert(!slurm_node_name_ok("a b"));
	ck_assert(!slurm_node_name_ok("a state=resume"));
	ck_assert(!slurm_node_name_ok("nodename=x"));
	ck_assert(!slurm_node_name_ok("0123456789012345678901234567890123456789012345678901234567890123"));
	ck_assert(!slurm_node_reason_is_loom("Loom: x"));
	ck_assert(!slurm_node_reason_is_loom(" loom: x"));
	ck_assert(slurm_node_reason_is_loom("loom:x"));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("slurm_node");
	TCase *tc = tcase_create("slurm_node");

	tcase_add_test(tc, an_idle_node_is_neither_drained_nor_down_and_has_no_reason);
	tcase_add_test(tc, a_drained_node_has_its_reason_without_slurms_user_and_time);
	tcase_add_test(tc, a_mixed_draining_node_keeps_a_forged_mark_and_stops_before_comment);
	tcase_add_test(tc, down_and_operator_drained_nodes_are_told_apart);
	tcase_add_test(tc, other_lines_and_other_nodes_are_skipped);
	tcase_add_test(tc, scontrol_not_found_is_enoent_and_garbage_is_einval);
	tcase_add_test(tc, a_reason_without_a_mark_runs_to_the_line_end);
	tcase_add_test(tc, only_single_plain_node_names_go_to_scontrol);
	suite_add_tcase(s, tc);
	return check_run(s);
}
