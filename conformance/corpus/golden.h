/*
 * golden.h — golden file format v1: write, load, validate, compare, MANIFEST.
 *
 * A family's golden output is one or more files golden/<family>/<stem>.json:
 *
 *   {"schema":"<family>_v1.json","family":F,"source":{"name":..,"version":..},
 *    "numberOfTests":N,"notes":{flag: description},
 *    "testGroups":[{<shared parameters>,"tests":[
 *      {"tcId":1,"comment":..,"flags":[..],"result":"valid",<inputs>,
 *       "expected":{<rank-independent fields>, "perRank":{field:[value of rank 0, 1, ..]}}},
 *      ...]}]}
 *
 * - tcId is assigned by the writer in generation order (stable while tables
 *   are only appended to), unique across all files of a family.
 * - result: "valid"; "invalid" (an implementation must reject it; expected is
 *   {"error": torch's error text}); "acceptable" (implementation-defined, see
 *   flags; expected may carry "alternatives": [expected, ...]).
 * - per-rank arrays are indexed by global rank.
 * - 64-bit integers as decimal strings, Philox words as 8-digit hex.
 * - written with one test per line, so diffs of regenerations stay readable.
 *
 * Comparison (verify) is generic: a candidate value passes when it is
 * JSON-equal to the golden one, except the sampled values of a case carrying a
 * GpuOnly "tolerance" (see below).  Tested by check_golden.c.
 */
#ifndef SHC_GOLDEN_H
#define SHC_GOLDEN_H

#include <jansson.h>
#include "shardcheck.h"
#include "json_scan.h"

/* ---- writing ---- */

typedef struct shc_gw shc_gw;

/* A writer for one family: name ("shard-layout"), source reference. */
shc_gw *shc_gw_new(const char *family, const char *source_name, const char *source_version);
/* Declare a flag used by tests of this family (appears in "notes"). */
void shc_gw_note(shc_gw *w, const char *flag, const char *description);
/* The torch releases the family's files answer for (source.releases; SHC_TORCH_SET bits).
 * The writer registers it from the family record's `releases`. */
void shc_gw_releases(shc_gw *w, uint32_t set);
/* Why an answer is what it is, in shc_torch_change bits (one per change row). */
typedef struct shc_gw_why {
    uint32_t changes; /* the rows that decided it (e.g. shc_plan.torch_changes) */
    /* The rows it asked (shc_torch_ask, e.g. shc_plan.torch_asked).  The writer sets it to
     * SHC_GW_ASKED_ALL before the call: an answer that does not track what it asks has every
     * release computed; one that does sets it, and a release that agrees with the pinned one
     * on every asked row is then not computed (it answers as the pinned one). */
    uint32_t asked;
} shc_gw_why;
#define SHC_GW_ASKED_ALL UINT32_MAX
/* One release's answer to a test whose inputs are in t: set "result" and "expected" (and
 * flags), and *why.  SHC_EUNSUPPORTED: not modelled (no test, when the pinned release says
 * so). */
typedef int (*shc_gw_answer_fn)(void *ctx, shc_torch_release r, json_t *t, shc_gw_why *why,
                                shc_err *e);
/* Append a test answered by every release the writer covers (steals t, the inputs): the
 * pinned release's answer at the top level, each release whose (result, expected) differs
 * in a "byVersion" entry {"torch": [releases], "result", "expected"} (releases with equal
 * answers share one), and the flags (with notes) of the changes that made them differ; a
 * release that differs without naming a change is an internal error. */
int shc_gw_test_by_release(shc_gw *w, json_t *t, shc_gw_answer_fn fn, void *ctx, shc_err *e);
/* Start a new output file golden/<family>/<stem>.json; later groups go there. */
int shc_gw_file(shc_gw *w, const char *stem, shc_err *e);
/* Start a new test group with shared parameters (steals the reference). */
int shc_gw_group(shc_gw *w, json_t *params, shc_err *e);
/* Append a test to the current group (steals the reference); assigns tcId. */
int shc_gw_test(shc_gw *w, json_t *test, shc_err *e);
/* Number of tests written so far (all files). */
int64_t shc_gw_count(const shc_gw *w);
/* Call fn(ctx, tests so far) after each test is added: `gen` shows progress through a
 * family whose generation takes seconds, without the corpus knowing about terminals. */
void shc_gw_on_test(shc_gw *w, void (*fn)(void *ctx, int64_t count), void *ctx);
/* Write every file under outdir/<family>/ (creating directories). */
int shc_gw_write(shc_gw *w, const char *outdir, shc_err *e);
/* Free the writer. */
void shc_gw_free(shc_gw *w);

/* New test object {"comment":c,"flags":[],"result":r} to which inputs and
 * "expected" are added; flags are added with shc_test_flag. */
json_t *shc_test_new(const char *comment, const char *result);
/* Add a flag to a test (once; the flag must be declared with shc_gw_note). */
void shc_test_flag(json_t *test, const char *flag);
/* The torch release a test is asked about: its "torch" member ("2.15"), which the loader
 * sets when verify or run judge against another release than the pinned one and the
 * writer sets while it computes each release's answer; SHC_TORCH_PINNED when absent. */
int shc_test_torch(const json_t *test, shc_torch_release *out, shc_err *e);
/* Whether a golden test carries a flag. */
bool shc_test_has_flag(const json_t *test, const char *flag);
/* The flags of an invalid case torch itself does not reject (docs/invalid-audit.md): torch
 * accepts it (the harness's torch adapters and the torch backend must show it does), or
 * no torch object can be written for it (the notation refuses it). */
#define SHC_STRICTER_THAN_TORCH "StricterThanTorch"
#define SHC_NOT_TORCH_INPUT "NotTorchInput"
/* v in decimal at buf (SHC_I64_DEC_MAX bytes at most, no NUL written); the length.  By hand,
 * not snprintf: the runner and verify write several per case, and the format engine was a
 * sixteenth of `run --backend ref --family shard-layout`. */
#define SHC_I64_DEC_MAX 20
size_t shc_i64_dec(int64_t v, char *buf);
/* Decimal-string JSON value for a 64-bit integer. */
json_t *shc_json_i64s(int64_t v);
/* JSON array of int64 numbers. */
json_t *shc_json_i64_array(const int64_t *v, int64_t n);

/* ---- loading and validating ---- */

/* Where a test sits in its file's bytes (shc_golden_index_family). */
typedef struct shc_gtext { shc_span test, expected, flags; bool invalid; int64_t group; } shc_gtext;
/* Where a test group sits (shc_golden_index_family): its bytes and its "tests" value's. */
typedef struct shc_ggroup { shc_span text, tests; } shc_ggroup;

/* A loaded family: every file's tests indexed by tcId (sorted). */
typedef struct shc_golden {
    char family[64];
    json_t **tests;      /* tests[i], borrowed from roots; from the index loader NULL until
                          * shc_golden_test parses it (then owned) */
    json_t **groups;     /* the testGroup each test belongs to (NULL from the index loader:
                          * shc_golden_group) */
    int64_t ntests;
    json_t **roots;      /* one per file (NULLs from the index loader) */
    char **paths;
    int nfiles;
    int64_t *tcids;      /* tcids[i]: test i's tcId */
    shc_gtext *text;     /* index loader: test i's bytes in bufs; NULL from the tree loaders */
    struct shc_map *maps; /* index loader: each file's bytes (json_map.c) */
    shc_ggroup *gtext;   /* index loader: every group's bytes, text[i].group indexes them */
    json_t **gtree;      /* index loader: the groups parsed so far (their "tests" empty) */
    int64_t ngroups;
    shc_span *fnotes;    /* index loader: each file's "notes" bytes (shc_golden_note) */
    json_t **ntree;      /* index loader: the notes parsed so far, one per file */
    shc_torch_release torch; /* the release whose answers the tests hold (_at loaders) */
    char *unversioned;   /* a torch family's file without source.releases (read as what it
                          * is, the pinned release's answers; the caller notes it), or NULL */
} shc_golden;

/* Load one golden file (structural validation: schema name, family,
 * numberOfTests, tcId unique, declared flags, result values). */
int shc_golden_load_file(shc_golden *g, const char *path, shc_err *e);
/* Load every golden/<family>/<stem>.json under dir, sorted by name. */
int shc_golden_load_family(shc_golden *g, const char *dir, const char *family, shc_err *e);
/* The same, with every test holding release r's answer: a test's "byVersion" entry that
 * lists r replaces its "result" and "expected", and the test gets "torch": r's name (the
 * families compute that release's answer from it); r = SHC_TORCH_PINNED is
 * shc_golden_load_family.  A file that lists its releases and not r is refused; a torch
 * family's file without version data is read as what it is (g->unversioned). */
int shc_golden_load_family_at(shc_golden *g, const char *dir, const char *family,
                              shc_torch_release r, shc_err *e);
/* The .json names in fdir, sorted (strdup'ed into names[], *count of them; at most
 * SHC_MAX_GOLDEN_FILES); both family loaders list a directory this way. */
int shc_golden_list_family(const char *fdir, const char *family, char **names, int *count,
                           shc_err *e);
/* Most files one golden family directory may hold. */
#define SHC_MAX_GOLDEN_FILES 4096
/* Largest JSON input read (a golden file or a candidate): 1 GiB.  Parsed, that is
 * about 10 GiB of jansson objects; larger candidates must be split by golden file. */
#define SHC_MAX_JSON_BYTES ((int64_t)1 << 30)
/* Read and parse a JSON file (errors name the file, line and column); only a
 * regular file of at most SHC_MAX_JSON_BYTES (a FIFO or device is refused at once). */
json_t *shc_json_load_path(const char *path, shc_err *e);
/* json_loadb as every JSON input of the corpus and of verify is read: a key repeated in
 * an object is an error (JSON_REJECT_DUPLICATES; jansson would keep the last one, and a
 * wrong answer beside a right one under one key could pass), its message naming the key
 * (line and column in je as for any error). */
json_t *shc_json_loadb(const char *buf, size_t len, json_error_t *je);
/* jansson's message for a repeated key quotes it only when short ("near '"words"'"): this
 * names it always, read from buf before the error's position (just past the key); any other
 * error is left as it is. */
void shc_json_error_name_key(const char *buf, size_t len, json_error_t *je);
/* Load a family for verify: the same files, checks and errors as shc_golden_load_family,
 * but each file is scanned (json_scan.h) instead of parsed, and a test is parsed only
 * when shc_golden_test asks for it.  A file the scanner is unsure of (or that fails a
 * check) sends the whole family through shc_golden_load_family, which then gives the
 * error message or the trees. */
int shc_golden_index_family(shc_golden *g, const char *dir, const char *family, shc_err *e);
/* shc_golden_index_family for release r: the pinned release's answers are the top-level
 * bytes the index serves; another release's go through the tree loader (_at). */
int shc_golden_index_family_at(shc_golden *g, const char *dir, const char *family,
                               shc_torch_release r, shc_err *e);
/* Test i as a jansson object (parsed on first use from the index loader's bytes; a
 * test that scanned but does not parse is an internal error: exit 99). */
json_t *shc_golden_test(const shc_golden *g, int64_t i);
/* The test group of test i as a jansson object: from the index loader parsed on first use
 * (then kept) with its "tests" array empty, which no reader of a group's parameters looks
 * at; from the tree loaders the group itself. */
json_t *shc_golden_group(const shc_golden *g, int64_t i);
/* The file test i comes from (an index into paths), from either loader; -1 if none. */
int shc_golden_file_of(const shc_golden *g, int64_t i);
/* What the corpus says a flag means: the "notes" entry of the first file that has one (its
 * notes parsed on first use from the index loader's bytes), or NULL. */
const char *shc_golden_note(const shc_golden *g, const char *flag);
/* Done with test i for now: a test the index loader parsed is freed (parsed again if asked
 * for), so verify holds one test's tree at a time, not the family's. */
void shc_golden_test_done(const shc_golden *g, int64_t i);
/* Index of a tcId in g (-1 if absent). */
int64_t shc_golden_index(const shc_golden *g, int64_t tcid);
/* Read a whole regular file of at most SHC_MAX_JSON_BYTES (the checks and messages of
 * shc_json_load_path); the caller frees the bytes. */
char *shc_read_path(const char *path, size_t *len, shc_err *e);
/* Open a JSON input for reading: a regular file of at most SHC_MAX_JSON_BYTES (the checks
 * and messages of shc_read_path); its size in *size.  The fd, or -1 with e set. */
int shc_open_json_input(const char *path, int64_t *size, shc_err *e);

/* ---- mapped JSON inputs (json_map.c) ----
 * A file's bytes p[0, n) through a read-only mapping (or a malloc'd copy when it cannot
 * be mapped), valid until shc_map_free.  Readers that walk the bytes call
 * shc_map_touched with what they read; every SHC_MAP_WINDOW bytes the pages of every
 * live mapping are dropped from the process (they fault back in, same bytes, if read
 * again), which bounds the resident share of the inputs, see json_map.c. */
typedef struct shc_map { const char *p; size_t n; char *heap; bool mapped; } shc_map;
#define SHC_MAP_WINDOW ((size_t)4 << 20)
/* The checks and messages of shc_read_path; SHC_OK or e's code. */
int shc_map_path(shc_map *m, const char *path, shc_err *e);
void shc_map_touched(size_t bytes);
void shc_map_trim_all(void);
void shc_map_free(shc_map *m);
/* Whether a command should free its big structures before exiting: only where a leak
 * checker looks (an ASan build, or SHARDCHECK_SANITIZED=1).  Elsewhere the OS frees
 * them at exit, and freeing two parsed families took a third of verify's time. */
bool shc_free_at_exit(void);
/* Whether a loaded family (trees) declares flag in a file's "notes". */
bool shc_golden_declares_flag(const shc_golden *g, const char *flag);
/* Find a test by tcId (NULL if absent). */
json_t *shc_golden_find(const shc_golden *g, int64_t tcid);
/* Free everything loaded. */
void shc_golden_free(shc_golden *g);

/* ---- comparing ---- */

/* An invalid test flagged StricterThanTorch (shardcheck rejects it, torch accepts it: a limit
 * of shardcheck's own) that a view answers instead of rejecting: not a failure but
 * NotSupported with SHC_STRICTER_ANSWERED as the reason (the families list the flag as
 * optional, so no claim requires it); run and verify judge it alike. */
#define SHC_STRICTER_ANSWERED "answered as torch does (flag StricterThanTorch: shardcheck " \
    "rejects it, torch accepts it; no claim requires it)"
bool shc_stricter_answered(const json_t *test, const json_t *got);
/* One rank's view of an expected object: its rank-independent fields plus
 * perRank[field][rank] for every per-rank field (rank < 0: the object as is).
 * Returns a new reference, NULL if rank is outside a per-rank array. */
json_t *shc_expected_view(const json_t *expected, int64_t rank);
/* Compare a candidate's view `got` of test t at rank (or -1 for the whole
 * expected object).  Returns 1 on a match; 0 on a mismatch with msg set to
 * "FIELD: expected E, got G" (values shortened); an invalid test matches any
 * got holding "error"; an acceptable one also matches expected.alternatives.
 * On a match msg is "" or, for a GpuOnly case passed within its tolerance, a
 * note ("note: sha256 differs (GpuOnly: ...)") that callers report beside the Pass. */
int shc_compare_view(const json_t *test, int64_t rank, const json_t *got, char *msg, size_t n);
/* ---- comparing in bytes (golden_bytes.c) ----
 * A golden test's expected object split in its own bytes: the rank-independent members
 * (key[k], val[k], k < ncommon) and each perRank array's elements (pkey[k], k < nper, and
 * elem[rank * SHC_BVIEW_MAX_KEYS + k]).  Reused from test to test (elem grows). */
#define SHC_BVIEW_MAX_KEYS 32
typedef struct shc_bview {
    shc_span key[SHC_BVIEW_MAX_KEYS], val[SHC_BVIEW_MAX_KEYS], pkey[SHC_BVIEW_MAX_KEYS];
    int ncommon, nper;
    bool has_per_rank;
    int64_t world;       /* the perRank arrays' length (0: none) */
    shc_span *elem;
    size_t cap;
    bool ok;             /* split, and shc_bview_same may say "same" */
} shc_bview;
/* Split a golden test's "expected" span (bytes the scanner validated); false when this
 * test is left to the trees (alternatives, repeated or escaped keys, ragged perRank,
 * too many fields, no memory). */
bool shc_bview_split(shc_bview *b, shc_span expected);
/* shc_bview_split of golden test i's bytes (the index loader's; the bytes read are counted
 * for json_map.c's window); false, too, when g holds no bytes or the test is invalid. */
bool shc_bview_split_test(shc_bview *b, const shc_golden *g, int64_t i);
/* Whether a candidate's "values" object (validated bytes) is, for sure, JSON-equal to
 * the view at rank (-1: a test without perRank, whole); then shc_compare_view passes it
 * with no note.  false: not known, compare the trees. */
bool shc_bview_same(const shc_bview *b, int64_t rank, shc_span values);
/* The same for the object at a cursor (bytes not validated yet: a match vouches for
 * them, see shc_scan_values_fn); on a match the cursor is moved past it, else left. */
bool shc_bview_match(const shc_bview *b, int64_t rank, shc_jcur *c);
/* The same for a view held as a tree (a worker's computed view, run_lean.c): true only
 * where shc_compare_view would pass it with no note; false: not known. */
bool shc_bview_same_tree(const shc_bview *b, int64_t rank, const json_t *view);
/* Whether the expected object's world is 0 (no perRank arrays, or the first one empty,
 * as shc_expected_world counts), in *zero, without splitting it; false when the trees
 * must decide. */
bool shc_bview_world_zero(shc_span expected, bool *zero);
void shc_bview_free(shc_bview *b);

/* ---- GpuOnly tolerance (golden_tolerance.c) ----
 * A GpuOnly case whose values follow our emulation of a GPU's fast math carries
 * "tolerance": {"dtype": D, "ulp": N}: its sampled values ("samples", "sample", "bits")
 * may differ from golden by N ulp of D at max(|expected|, 1), and a digest ("sha256",
 * "digest") that differs is a note, not a failure.  Everything else is exact. */
typedef struct shc_tol {
    int ulp;            /* allowed distance */
    int mbits;          /* explicit mantissa bits of dtype */
    const char *dtype;  /* borrowed from the test */
    double worst;       /* largest distance seen so far */
} shc_tol;
/* The tolerance (ulp) of op's GPU values in dtype; 0 = exact.  The one table. */
int shc_gpu_tolerance_ulp(const char *op, const char *dtype);
/* Add "tolerance" to a GpuOnly test when op/dtype has one (generators). */
void shc_test_set_tolerance(json_t *test, const char *op, const char *dtype);
/* The sentence that states every tolerance, for the GpuOnly notes. */
const char *shc_gpu_tolerance_note(void);
/* 1 when test's "tolerance" (if any) is well formed and on a GpuOnly case; else 0 + msg. */
int shc_tolerance_check(const json_t *test, char *msg, size_t n);
/* Fill t from test's tolerance; 0 when the test has none (compare exactly). */
int shc_tolerance_of(const json_t *test, shc_tol *t);
/* Whether a field is a digest (a note when it differs) or sampled values (tolerant). */
bool shc_tol_digest_field(const char *field);
bool shc_tol_value_field(const char *field);
/* Compare a sampled-values field within t (t->worst updated); 0 with msg set. */
int shc_tol_compare(shc_tol *t, const char *field, const json_t *want, const json_t *got,
                    char *msg, size_t n);
/* The note for a case that passed within t ("note: sha256 differs (GpuOnly: ...)"). */
void shc_tol_note(const shc_tol *t, const char *digest, char *msg, size_t n);

/* World size implied by a test's expected.perRank arrays (0 if none). */
int64_t shc_expected_world(const json_t *expected);

/* Write dir/MANIFEST: "sha256  family/file.json" per golden file and
 * "sha256  schemas/<name>.json" per schema present (the families' and the common.json they
 * all refer to), sorted. */
int shc_manifest_write(const char *dir, shc_err *e);
/* The same after regenerating one family (NULL: every one): family's lines (its files, its
 * schema and schemas/common.json) hashed from disk, every other line kept as dir/MANIFEST has
 * it, so a changed file of another family stays changed (issue 38 M8); a MANIFEST that cannot
 * be read is refused. */
int shc_manifest_write_family(const char *dir, const char *family, shc_err *e);
/* sha256 of a regular file's bytes as 64 lowercase hex chars (libcrypto); SHC_EIO naming the
 * path (a directory, FIFO or device is refused before a byte is read). */
int shc_sha256_file(const char *path, char out[65], shc_err *e);
/* A MANIFEST read whole (manifest.c): every line "<sha256>  <path>" checked (the path
 * relative and plain: no absolute path, no '..', '.' or empty component), no path twice;
 * CRLF line ends accepted, as sha256sum -c accepts them. */
#define SHC_MAX_MANIFEST_BYTES ((int64_t)64 << 20)
typedef struct shc_mline {
    char hex[65];
    char *rel;
    int line;             /* 1-based, for messages */
} shc_mline;
typedef struct shc_manifest {
    char path[4096];
    shc_mline *v;         /* in file order */
    shc_mline **sorted;   /* by path */
    size_t n;
} shc_manifest;
/* Read and check path (a regular file of at most SHC_MAX_MANIFEST_BYTES): SHC_OK, or
 * SHC_EFORMAT / SHC_EIO naming the file and line; m needs no freeing on failure. */
int shc_manifest_read(const char *path, shc_manifest *m, shc_err *e);
/* The line listing rel, or NULL. */
const shc_mline *shc_manifest_find(const shc_manifest *m, const char *rel);
void shc_manifest_free(shc_manifest *m);
/* Check dir/MANIFEST against the files (missing, extra, changed); schemas included. */
int shc_manifest_verify(const char *dir, shc_err *e);
/* The same for one family's files and its schema only (what verify --family reads).  A
 * file whose sha256 matches both lines (dir's MANIFEST and this build's, golden_trust.c) is
 * vouched for under the path it was hashed as, "dir/family/file.json". */
int shc_manifest_verify_family(const char *dir, const char *family, shc_err *e);

/* ---- golden files known valid (golden_trust.c) ---- */
/* Whether hex (64 lowercase hex digits) is the sha256 of a file of this build's corpus. */
bool shc_golden_sha_known(const char *hex);
/* Records that the file at path has just hashed to hex, if hex is known; then
 * shc_golden_vouched(path) is true for the rest of the process. */
void shc_golden_vouch(const char *path, const char *hex);
bool shc_golden_vouched(const char *path);

#endif
