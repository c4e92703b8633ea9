/*
 * dtype.c — torch element types: names as torch spells them, sizes.
 * One table, so the RNG kernels, the cost model and redistribute execution
 * cannot disagree on a dtype's name, alias or width.  Tested by check_core.c.
 */
#include "config.h"
#include <assert.h>
#include <string.h>
#include "shardcheck.h"

/* Every torch dtype the project names.  Rows with dt < 0 have a size (the
 * planners' cost model prices them) but no element kernels: the RNG and
 * execution code reject them by name.  Aliases are torch's own
 * (torch.float is float32, torch.long is int64, torch.cfloat is complex64). */
static const struct row {
    const char *name, *alias1, *alias2;
    size_t size;
    bool is_int;
    int dt;             /* shc_dtype, or -1 for size-only dtypes */
    shc_dtype_class cls;
    const char *scalar; /* c10's ScalarType name, as torch's error messages print it */
} table[] = {
    {"float32", "float", NULL, 4, false, SHC_DT_FLOAT32, SHC_DTC_FLOAT, "Float"},
    {"float64", "double", NULL, 8, false, SHC_DT_FLOAT64, SHC_DTC_FLOAT, "Double"},
    {"float16", "half", NULL, 2, false, SHC_DT_FLOAT16, SHC_DTC_FLOAT, "Half"},
    {"bfloat16", NULL, NULL, 2, false, SHC_DT_BFLOAT16, SHC_DTC_FLOAT, "BFloat16"},
    {"int64", "long", NULL, 8, true, SHC_DT_INT64, SHC_DTC_INT, "Long"},
    {"int32", "int", NULL, 4, true, SHC_DT_INT32, SHC_DTC_INT, "Int"},
    {"int16", "short", NULL, 2, true, SHC_DT_INT16, SHC_DTC_INT, "Short"},
    {"int8", NULL, NULL, 1, true, SHC_DT_INT8, SHC_DTC_INT, "Char"},
    {"uint8", NULL, NULL, 1, true, SHC_DT_UINT8, SHC_DTC_INT, "Byte"},
    {"bool", NULL, NULL, 1, true, SHC_DT_BOOL, SHC_DTC_INT, "Bool"},
    {"float8_e4m3fn", NULL, NULL, 1, false, -1, SHC_DTC_FLOAT8, "Float8_e4m3fn"},
    {"float8_e5m2", NULL, NULL, 1, false, -1, SHC_DTC_FLOAT8, "Float8_e5m2"},
    {"complex64", "cfloat", NULL, 8, false, -1, SHC_DTC_COMPLEX, "ComplexFloat"},
    {"complex128", "cdouble", NULL, 16, false, -1, SHC_DTC_COMPLEX, "ComplexDouble"},
};
#define NROWS (sizeof table / sizeof table[0])

/* The row for dtype t, found by its enum value (rows are in enum order). */
static const struct row *row_of(shc_dtype t)
{
    if (t < 0 || t >= SHC_DT_COUNT)
        return NULL;
    assert(table[t].dt == (int)t);
    return &table[t];
}

static const struct row *lookup(const char *s)
{
    if (s && !strncmp(s, "torch.", 6))
        s += 6;
    for (size_t i = 0; s && i < NROWS; i++)
        if (!strcmp(s, table[i].name) || (table[i].alias1 && !strcmp(s, table[i].alias1)) ||
            (table[i].alias2 && !strcmp(s, table[i].alias2)))
            return &table[i];
    return NULL;
}

int shc_dtype_parse(const char *s, shc_dtype *out, shc_err *e)
{
    const struct row *r = lookup(s);
    if (r && r->dt >= 0) {
        *out = (shc_dtype)r->dt;
        return SHC_OK;
    }
    if (r)
        return shc_fail(e, SHC_EINVAL, "dtype '%.64s' has no element kernels here (expected float32, "
                        "float64, float16, bfloat16, int64, int32, int16, int8, uint8 or bool)", s);
    return shc_fail(e, SHC_EINVAL, "unknown dtype '%.64s' (expected float32, float64, float16, "
                    "bfloat16, int64, int32, int16, int8, uint8 or bool)", s ? s : "");
}

int shc_dtype_bytes(const char *name, int *bytes, shc_err *e)
{
    const struct row *r = lookup(name);
    if (!r)
        return shc_fail(e, SHC_EINVAL, "dtype '%.64s': unknown (expected a torch dtype such as "
                        "float32, bfloat16, float16, float64, int8, int32, int64, complex64)",
                        name ? name : "");
    *bytes = (int)r->size;
    return SHC_OK;
}

int shc_dtype_kind_of(const char *name, shc_dtype_class *cls, const char **scalar, shc_err *e)
{
    const struct row *r = lookup(name);
    if (!r)
        return shc_fail(e, SHC_EINVAL, "dtype '%.64s': unknown (expected a torch dtype such as "
                        "float32, bfloat16, float16, float64, int8, int32, int64, complex64)",
                        name ? name : "");
    *cls = r->cls;
    if (scalar)
        *scalar = r->scalar;
    return SHC_OK;
}

const char *shc_dtype_name(shc_dtype t)
{
    const struct row *r = row_of(t);
    return r ? r->name : "?";
}

size_t shc_dtype_size(shc_dtype t)
{
    const struct row *r = row_of(t);
    return r ? r->size : 0;
}

bool shc_dtype_is_int(shc_dtype t)
{
    const struct row *r = row_of(t);
    return r && r->is_int;
}
