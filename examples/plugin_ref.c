/* examples/plugin_ref.c — placeholder while the exec area lands. */
#include "config.h"
typedef int shc_placeholder_plugin_ref;
