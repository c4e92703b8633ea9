/* cmd_run.c — `shardcheck run` (stub until the execution area lands). */
#include "config.h"
#include "cli.h"
int cmd_run(int argc, char **argv) { return cli_usage_error("run", "not implemented yet"); }
