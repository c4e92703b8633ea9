/* cmd_layout.c — STUB */
#include "config.h"
#include "cli.h"
int cmd_layout(int argc, char **argv) { return cli_usage_error("layout", "not implemented yet"); }
