/*
 * dtype.c — torch element types: names as torch spells them, sizes.
 * One table, so the RNG kernels, the cost model and redistribute execution
 * cannot disagree on a dtype's name or width.  Tested by check_core.c.
 */
#include "config.h"
#include <string.h>
#include "shardcheck.h"

static const struct {
    const char *name, *alias1, *alias2;
    size_t size;
    bool is_int;
} table[SHC_DT_COUNT] = {
    [SHC_DT_FLOAT32] = {"float32", "float", NULL, 4, false},
    [SHC_DT_FLOAT64] = {"float64", "double", NULL, 8, false},
    [SHC_DT_FLOAT16] = {"float16", "half", NULL, 2, false},
    [SHC_DT_BFLOAT16] = {"bfloat16", NULL, NULL, 2, false},
    [SHC_DT_INT64] = {"int64", "long", NULL, 8, true},
    [SHC_DT_INT32] = {"int32", "int", NULL, 4, true},
    [SHC_DT_INT16] = {"int16", "short", NULL, 2, true},
    [SHC_DT_INT8] = {"int8", NULL, NULL, 1, true},
    [SHC_DT_UINT8] = {"uint8", NULL, NULL, 1, true},
    [SHC_DT_BOOL] = {"bool", NULL, NULL, 1, true},
};

int shc_dtype_parse(const char *s, shc_dtype *out, shc_err *e)
{
    if (s && !strncmp(s, "torch.", 6))
        s += 6;
    for (int i = 0; s && i < SHC_DT_COUNT; i++) {
        if (!strcmp(s, table[i].name) || (table[i].alias1 && !strcmp(s, table[i].alias1)) ||
            (table[i].alias2 && !strcmp(s, table[i].alias2))) {
            *out = (shc_dtype)i;
            return SHC_OK;
        }
    }
    return shc_fail(e, SHC_EINVAL, "unknown dtype '%s' (expected float32, float64, float16, "
                    "bfloat16, int64, int32, int16, int8, uint8 or bool)", s ? s : "");
}

const char *shc_dtype_name(shc_dtype t)
{
    return (t >= 0 && t < SHC_DT_COUNT) ? table[t].name : "?";
}

size_t shc_dtype_size(shc_dtype t) { return (t >= 0 && t < SHC_DT_COUNT) ? table[t].size : 0; }

bool shc_dtype_is_int(shc_dtype t) { return (t >= 0 && t < SHC_DT_COUNT) && table[t].is_int; }
