/*
 * json_lex.h — JSON tokens read exactly as jansson 2.14 (Debian libjansson4 2.14-2,
 * src/load.c, src/utf.c, src/strconv.c) reads them with the flags verify uses, for the
 * scanner (json_scan.c): which strings and numbers it accepts, and a string's bytes once
 * decoded.  Internal to conformance/corpus.
 *
 * Why exact: a candidate the scanner accepts is compared without a jansson tree, so the
 * scanner must accept what jansson accepts and nothing else (issue 27 N1, N2, N10): a
 * string with an escape or a non-ASCII byte is valid JSON that jansson reads, and used to
 * send the whole file to the trees; a real that overflows a double is an error in jansson
 * and used to pass the scanner.  Tested by check_golden_bytes (the scanner against
 * jansson on every kind of token, and at the overflow boundary), verify_fast.sh and the
 * verify_diff fuzz target.
 */
#ifndef SHC_JSON_LEX_H
#define SHC_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>

/* p at a byte inside a string that is not printable ASCII standing for itself (a '\\', a
 * control character or a non-ASCII byte; never the closing '"'): past the escape or the
 * UTF-8 sequence starting there when jansson accepts it, else NULL.  *esc is set for an
 * escape (the string's bytes are then not its value). */
const char *shc_lex_string_special(const char *p, const char *end, bool *esc);

/* Whether the real number text s[0, n) (JSON grammar checked: it has a '.' or an exponent)
 * is read by jansson without "real number overflow": strtod gives +-HUGE_VAL exactly when
 * |value| >= 2^1024 - 2^970 (round to nearest even; an underflow is no error). */
bool shc_lex_real_fits(const char *s, size_t n);

/* The value of a string's raw contents raw[0, n) (validated: shc_lex_string_special
 * accepted every escape) into out, which has room for n bytes; its length.  \u escapes
 * become UTF-8 (a surrogate pair one 4-byte character), as jansson decodes them. */
size_t shc_lex_decode(const char *raw, size_t n, char *out);

#endif
