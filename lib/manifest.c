/* manifest.c — STUB */
#include "config.h"
#include "golden.h"
