/* cmd_verify.c — STUB */
#include "config.h"
#include "cli.h"
int cmd_verify(int argc, char **argv) { return cli_usage_error("verify", "not implemented yet"); }
