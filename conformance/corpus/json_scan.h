/*
 * json_scan.h — a validating JSON scanner that finds the tests of a golden-shaped
 * document without building a tree.
 *
 * Why: verify used to parse the golden family and the candidate into two jansson
 * trees and free them again; allocation was almost all of its time (issue 12).
 * The scanner walks the bytes once, checks the JSON grammar, and hands each test of
 * {"testGroups":[{"tests":[{...}]}]} to a callback as spans of the buffer (tcId,
 * result, expected), so a test is parsed with jansson only when it must be; likewise
 * each entry of a results file's {"results":[{"tcId":..,"rank":..,"values":{..}}]}
 * ("error" or "notSupported" in place of "values").
 *
 * It accepts exactly what jansson 2.14 reads with the flags verify uses
 * (JSON_REJECT_DUPLICATES, shc_json_loadb): escapes, surrogate pairs and UTF-8 as
 * jansson validates them, integers within int64 and reals that do not overflow a
 * double (json_lex.c), every key of every object unique (json_keys.c), and jansson's
 * one quirk of a NUL byte after a number (issue 27).  It gives up with SHC_SCAN_UNSURE
 * on anything else: invalid JSON (the caller has jansson word the error, see drop in
 * shc_scan_doc), nesting past SCAN_MAX_DEPTH (jansson's own limit is deeper), memory.
 * The one object it does not validate itself is a results entry's "values" that the
 * caller's vouch hook matched token for token against bytes already valid, with
 * whitespace only between tokens (shc_scan_values_fn, shc_jcur_match): the same tokens
 * are then valid too.
 * Tested by check_golden_bytes (the scanner against jansson on token tables and random
 * texts), verify_fast.sh (every candidate form compared with the jansson path) and the
 * candidate and verify_diff fuzzers.
 */
#ifndef SHC_JSON_SCAN_H
#define SHC_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A byte range of the scanned buffer; p == NULL: absent. */
typedef struct shc_span { const char *p; size_t n; } shc_span;

/* One test object, as spans of the buffer. */
typedef struct shc_scan_test {
    size_t gi, ti;        /* testGroups[gi].tests[ti] */
    bool is_object;       /* false: the entry is not an object (nothing else is set) */
    bool has_tcid;        /* "tcId" is an integer (json_is_integer) */
    int64_t tcid;
    shc_span text;        /* the whole test object */
    shc_span result;      /* the raw contents of a "result" string (no escapes), else NULL */
    bool result_other;    /* "result" is present but not a plain string */
    shc_span flags;       /* the "flags" value */
    shc_span expected;    /* the "expected" value */
    bool known;           /* the bytes are those the known hook gave (nothing else is set
                           * but tcid, has_tcid and text) */
} shc_scan_test;

/* The document's top-level members the callers look at (absent: p == NULL). */
typedef struct shc_scan_doc {
    shc_span family, schema;   /* raw string contents when plain strings, else p == NULL */
    shc_span family_value;     /* the "family" value as written (any kind) */
    bool family_other, schema_other; /* present but not a plain string */
    shc_span notes, number_of_tests, fields, results, test_groups;
    bool groups_ok;            /* every testGroups entry is an object with a "tests" array */
    size_t bad_group;          /* the first one that is not (when !groups_ok) */
    /* When the scan gave up: runs of complete array elements before the place it stopped
     * (results entries, test groups, the tests of the last group), each from the first
     * element to the start of the last one begun (n 0: none).  Without them the document
     * reads the same to that place, so jansson finds the same error in it while building
     * a tree of an element or two, not of the file (verify_scan.c; issue 27 N10). */
    shc_span drop[2];
} shc_scan_doc;

/* Called for every test in document order; a nonzero return stops the scan and is
 * returned by shc_scan_golden_shaped. */
typedef int (*shc_scan_fn)(void *ctx, const shc_scan_test *t);

/* One entry of a results file's "results" array, as spans (absent: p == NULL). */
typedef struct shc_scan_result {
    size_t i;             /* results[i] */
    bool is_object;       /* false: the entry is not an object (only text is set) */
    bool has_tcid;        /* "tcId" is an integer (json_is_integer) */
    int64_t tcid;
    shc_span rank, values, error, not_supported; /* those members' values */
    shc_span text;        /* the whole entry */
    bool vouched;         /* "values" was matched by the vouch hook (shc_scan_values_fn) */
} shc_scan_result;

/* Called for every results entry in document order (nonzero: stop, as shc_scan_fn). */
typedef int (*shc_scan_result_fn)(void *ctx, const shc_scan_result *r);

/* Optional, results files: called at an entry's "values" object when the entry's integer
 * "tcId" came before it (r holds what was read so far: tcid, and rank if it came first),
 * with the cursor at the '{'.  Return true after moving the cursor past the object when
 * its bytes matched, token for token, bytes known valid (shc_jcur_match): same tokens as
 * valid JSON are valid JSON that jansson reads the same, so the scanner takes the object
 * as validated and sets r->vouched.  Return false with the cursor where it was to have it
 * validated as usual.  A "rank" member after "values" clears r->vouched. */
typedef struct shc_jcur shc_jcur;
typedef bool (*shc_scan_values_fn)(void *ctx, const shc_scan_result *r, shc_jcur *c);

/* Optional: the text of a test already known valid (a golden test) for a tcId, or a
 * NULL span.  A test whose first member is that tcId and whose bytes repeat the known
 * text is skipped by one memcmp: a complete JSON object is self-delimiting, so the same
 * bytes are the same valid object.  This is what makes a correct candidate cheap. */
typedef shc_span (*shc_scan_known_fn)(void *ctx, int64_t tcid);

/* The scan gave up: invalid JSON, or valid but not certainly read as jansson does. */
#define SHC_SCAN_UNSURE (-1)

/* Validate buf[0, n) as one JSON object (flags-0 jansson rules) and call fn for every
 * test under "testGroups" (when it is an array).  0 on success, SHC_SCAN_UNSURE, or fn's
 * nonzero return. */
int shc_scan_golden_shaped(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                           shc_scan_known_fn known, void *ctx);

/* Called after each testGroups entry that is an object, its tests having gone to the test
 * callback: the group's bytes and its "tests" value's (p == NULL: it has none).  Nonzero
 * stops the scan, as shc_scan_fn. */
typedef int (*shc_scan_group_fn)(void *ctx, size_t gi, shc_span group, shc_span tests);
/* shc_scan_golden_shaped (without the known hook) that also hands each group to gfn: the
 * golden index loader keeps the spans to parse a group's parameters when asked.  trusted:
 * the bytes are a golden file this build's tests read (json_trust.h), so the containers
 * below the walks' levels (a test's "expected", its group's parameters) are skipped by
 * their brackets (json_skip.h) and no key is checked for repeats: the spans are those
 * of the validating scan, in a fraction of its time. */
int shc_scan_golden_groups(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                           shc_scan_group_fn gfn, bool trusted, void *ctx);
/* shc_scan_golden_shaped that also hands every entry of a top-level "results" array (a
 * results file, tools/verify/verify_tree.c) to rfn. */
int shc_scan_candidate(const char *buf, size_t n, shc_scan_doc *doc, shc_scan_fn fn,
                       shc_scan_known_fn known, shc_scan_result_fn rfn,
                       shc_scan_values_fn vouch, void *ctx);

/* Whether a span holds a JSON integer (jansson's json_is_integer) that fits in int64;
 * its value in *v. */
bool shc_span_int(shc_span s, int64_t *v);
/* Where word first occurs in the span's bytes (NULL: nowhere), and whether it does. */
const char *shc_span_find(shc_span s, const char *word);
bool shc_span_has(shc_span s, const char *word);
/* Whether a span is exactly the bytes of the C string s. */
bool shc_span_is(shc_span a, const char *s);
/* A string value (validated, quotes included) decoded as jansson decodes it: malloc'd,
 * NUL-terminated, its length in *n; NULL when v is not a string (or memory is short). */
char *shc_span_string(shc_span v, size_t *n);
/* Whether a validated object has a member named name (escaped keys decoded), as
 * json_object_get finds it. */
bool shc_span_has_key(shc_span obj, const char *name);
/* Call fn(ctx, raw) for each plain string element of an array span (validated already);
 * false when an element is not a plain string (escaped or not a string). */
bool shc_span_each_string(shc_span arr, bool (*fn)(void *ctx, shc_span s), void *ctx);

/* ---- walking bytes the scanner validated already ----
 * A cursor for walks that look more than one level down (golden_bytes.c) without
 * validating again: it only finds where values end.  Given bytes that did not scan, it
 * gives wrong spans, but never reads outside [p, end). */
struct shc_jcur {
    const char *p, *end;
    int depth;
    struct shc_jkeys *keys; /* a scan's key stack (json_keys.h); NULL: keys not tracked */
    bool trusted; /* a scan of bytes known valid: containers below the walks are skipped */
};
static inline shc_jcur shc_jcur_of(shc_span s) { return (shc_jcur){s.p, s.p + s.n, 0, NULL, false}; }
/* At an object's '{' (*first true, set false) or after a member's value: 1 with the
 * member's raw key in *key and the cursor at its value, 0 past the '}', SHC_SCAN_UNSURE
 * for a key holding an escape (its bytes are not its name) or no object there. */
int shc_jcur_member(shc_jcur *c, bool *first, shc_span *key);
/* The same for an array: 1 with the cursor at the next element, 0 past the ']'. */
int shc_jcur_element(shc_jcur *c, bool *first);
/* The value at the cursor into *v, and the cursor past it. */
void shc_jcur_take(shc_jcur *c, shc_span *v);
/* Whether the value at the cursor is the same text as want (a valid value) but for
 * whitespace between tokens; when so, the cursor is moved past it.  Same text means
 * jansson reads equal values (json_equal); false says nothing ("a" and "\u0061" are one
 * value in other bytes). */
bool shc_jcur_match(shc_jcur *c, shc_span want);

#endif
