/* cmd_plan.c — `shardcheck plan` and `audit plan` (stub until the planner area lands). */
#include "config.h"
#include "cli.h"
int cmd_plan(int argc, char **argv) { return cli_usage_error("plan", "not implemented yet"); }
int cmd_audit_plan(int argc, char **argv) { return cli_usage_error("audit plan", "not implemented yet"); }
