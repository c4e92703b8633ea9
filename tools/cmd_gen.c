/* cmd_gen.c — STUB */
#include "config.h"
#include "cli.h"
int cmd_gen(int argc, char **argv) { return cli_usage_error("gen", "not implemented yet"); }
