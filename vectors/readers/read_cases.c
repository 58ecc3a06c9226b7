/* Reference reader for ptx-cvt case lines, version 1 (see vectors/README.md).
 *
 * C99, libc only; copy this file into your own project (drop main() or build
 * with -DPTXCVT_NO_MAIN). The full result syntax is supported: exact hex,
 * `?` patterns, value/mask, `nan`, `nan:W`, lanes (`nan_3c00`) and `|`.
 *
 *   cc -std=c99 -O2 -o read_cases read_cases.c
 *   ./read_cases FILE...    prints "FILE: N cases read"; on a malformed line
 *                           prints "FILE:LINE: message" and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTXCVT_MAX_LINE 4096
#define PTXCVT_MAX_OPERANDS 5
#define PTXCVT_MAX_ALTS 8

enum ptxcvt_kind { PTXCVT_BITS, PTXCVT_NAN };

struct ptxcvt_alt {
    int kind;            /* PTXCVT_BITS: (bits & mask) == value; PTXCVT_NAN: any NaN */
    uint64_t value, mask;
    unsigned width;      /* register width in bits */
    unsigned lane_bits;  /* lane syntax only: bits per lane, else 0 */
    uint32_t nan_lanes;  /* lane syntax: bit i set = lane i (0 = low lane) is any NaN */
};

struct ptxcvt_case {
    char instr[64];                          /* e.g. "cvt.rn.f16.f32" */
    int fmt;                                 /* destination lane format (index into FORMATS) */
    int noperands;
    uint64_t operand[PTXCVT_MAX_OPERANDS];
    unsigned operand_width[PTXCVT_MAX_OPERANDS];
    int nalts;                               /* 0: the line has no result */
    struct ptxcvt_alt alt[PTXCVT_MAX_ALTS];
    const char *comment;                     /* points into the line after '#', or NULL */
};

/* Formats: container bits, exponent bits, fraction bits, shift of the lowest
 * bit in the container (tf32: 13), NaN style: 0 none, 'i' IEEE, 'a' only
 * S.1111.111 (e4m3), 'm' the all-ones code (ue8m0). exp bits 0 = integer. */
static const struct { const char *name; unsigned bits, e, m, shift; char nan; } FORMATS[] = {
    {"u8", 8, 0, 0, 0, 0},  {"u16", 16, 0, 0, 0, 0}, {"u32", 32, 0, 0, 0, 0}, {"u64", 64, 0, 0, 0, 0},
    {"s8", 8, 0, 0, 0, 0},  {"s16", 16, 0, 0, 0, 0}, {"s32", 32, 0, 0, 0, 0}, {"s64", 64, 0, 0, 0, 0},
    {"f16", 16, 5, 10, 0, 'i'}, {"bf16", 16, 8, 7, 0, 'i'}, {"f32", 32, 8, 23, 0, 'i'},
    {"f64", 64, 11, 52, 0, 'i'}, {"tf32", 32, 8, 10, 13, 'i'},
    {"e4m3", 8, 4, 3, 0, 'a'}, {"e5m2", 8, 5, 2, 0, 'i'}, {"e2m3", 8, 2, 3, 0, 0},
    {"e3m2", 8, 3, 2, 0, 0}, {"e2m1", 4, 2, 1, 0, 0}, {"ue8m0", 8, 8, 0, 0, 'm'},
};
#define NFORMATS ((int)(sizeof FORMATS / sizeof FORMATS[0]))
/* Packed instruction types and their lane format. */
static const char *const PACKED[][2] = {
    {"f16x2", "f16"},   {"bf16x2", "bf16"}, {"e4m3x2", "e4m3"}, {"e5m2x2", "e5m2"},
    {"e2m3x2", "e2m3"}, {"e3m2x2", "e3m2"}, {"e2m1x2", "e2m1"}, {"ue8m0x2", "ue8m0"},
    {"e4m3x4", "e4m3"}, {"e5m2x4", "e5m2"}, {"e2m3x4", "e2m3"}, {"e3m2x4", "e3m2"}, {"e2m1x4", "e2m1"},
};

static uint64_t low_mask(unsigned n) { return n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1); }

static int format_index(const char *s, size_t n) {
    for (int i = 0; i < NFORMATS; i++)
        if (strlen(FORMATS[i].name) == n && memcmp(FORMATS[i].name, s, n) == 0) return i;
    for (size_t i = 0; i < sizeof PACKED / sizeof PACKED[0]; i++)
        if (strlen(PACKED[i][0]) == n && memcmp(PACKED[i][0], s, n) == 0)
            return format_index(PACKED[i][1], strlen(PACKED[i][1]));
    return -1;
}

/* Whether `code` (the format's own bits, shifted down) is a NaN of format f. */
int ptxcvt_is_nan(int f, uint64_t code) {
    unsigned e = FORMATS[f].e, m = FORMATS[f].m;
    uint64_t mag = code & low_mask(e + m); /* drop the sign bit */
    switch (FORMATS[f].nan) {
    case 'i': return (mag >> m) == low_mask(e) && (mag & low_mask(m)) != 0;
    case 'a': case 'm': return mag == low_mask(e + m);
    default: return 0;
    }
}

static unsigned width_of_digits(size_t n) { return n == 2 ? 8 : n == 4 ? 16 : n == 8 ? 32 : n == 16 ? 64 : 0; }

/* Hex digits, '?' allowed when `wild`: value/mask. Returns 0 on a bad digit. */
static int parse_digits(const char *s, size_t n, int wild, uint64_t *value, uint64_t *mask) {
    *value = *mask = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        *value <<= 4; *mask <<= 4;
        if (wild && c == '?') continue;
        if (d < 0) return 0;
        *value |= (uint64_t)d; *mask |= 0xf;
    }
    return 1;
}

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

/* One register-width hex field (operand, value or mask). */
static int parse_hex(const char *s, size_t n, int wild, uint64_t *v, uint64_t *m, unsigned *w,
                     const char *what, char *err, size_t errlen) {
    if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) FAIL("%s `%.*s`: write hex without 0x", what, (int)n, s);
    if (!(*w = width_of_digits(n)))
        FAIL("%s `%.*s` has %d digits; registers take 2, 4, 8 or 16", what, (int)n, s, (int)n);
    if (!parse_digits(s, n, wild, v, m)) FAIL("%s `%.*s` is not hex", what, (int)n, s);
    return 0;
}

/* One alternative of a result: s[0..n). */
static int parse_alt(const char *s, size_t n, int f, struct ptxcvt_alt *a, char *err, size_t errlen) {
    int is_float = f >= 0 && FORMATS[f].e > 0;
    memset(a, 0, sizeof *a);
    if (memchr(s, '_', n)) { /* lanes, high lane first */
        const char *p = s, *end = s + n;
        unsigned count = 0, lane_bits = 0;
        for (const char *q = s; q <= end; q++) /* lane width from the first non-nan lane */
            if (q == end || *q == '_') {
                if (!(q - p == 3 && memcmp(p, "nan", 3) == 0) && !lane_bits) lane_bits = 4 * (unsigned)(q - p);
                p = q + 1;
            }
        if (!lane_bits) lane_bits = is_float ? FORMATS[f].bits : 0;
        if (!lane_bits) FAIL("`%.*s`: `nan` lanes need a floating-point destination", (int)n, s);
        if (lane_bits > 32) FAIL("`%.*s`: lanes of %u bits do not fill a register", (int)n, s, lane_bits);
        for (p = s; p <= end; count++) {
            const char *q = memchr(p, '_', (size_t)(end - p));
            size_t len = (size_t)((q ? q : end) - p);
            uint64_t v, m;
            a->value <<= lane_bits; a->mask <<= lane_bits; a->nan_lanes <<= 1;
            if (len == 3 && memcmp(p, "nan", 3) == 0) {
                if (!is_float) FAIL("`nan` needs a floating-point destination");
                a->nan_lanes |= 1;
            } else if (4 * len != lane_bits || !parse_digits(p, len, 1, &v, &m)) {
                FAIL("`%.*s`: lanes must all be %u hex digits or `nan`", (int)n, s, lane_bits / 4);
            } else {
                a->value |= v; a->mask |= m;
            }
            p = (q ? q : end) + 1;
        }
        a->kind = PTXCVT_BITS; a->lane_bits = lane_bits; a->width = lane_bits * count;
        if (!width_of_digits(a->width / 4) || a->width % 4)
            FAIL("`%.*s`: %u lanes of %u bits do not fill a register", (int)n, s, count, lane_bits);
        return 0;
    }
    if (n >= 3 && memcmp(s, "nan", 3) == 0) {
        if (!is_float) FAIL("`nan` needs a floating-point destination");
        a->kind = PTXCVT_NAN; a->width = FORMATS[f].bits;
        if (n == 3) return 0;
        char buf[8] = {0};
        if (s[3] != ':' || n < 5 || n > 6 || strspn(s + 4, "0123456789") < n - 4) FAIL("`%.*s`: expected `nan` or `nan:WIDTH`", (int)n, s);
        memcpy(buf, s + 4, n - 4);
        unsigned w = (unsigned)strtoul(buf, NULL, 10);
        if (!width_of_digits(w / 4) || w % 4 || w < a->width)
            FAIL("`%.*s`: expected `nan` or `nan:WIDTH` with a register width", (int)n, s);
        a->width = w;
        return 0;
    }
    const char *slash = memchr(s, '/', n);
    a->kind = PTXCVT_BITS;
    if (slash) {
        uint64_t v, m, mm, unused; unsigned wm;
        if (parse_hex(s, (size_t)(slash - s), 0, &v, &unused, &a->width, "value", err, errlen) ||
            parse_hex(slash + 1, n - (size_t)(slash - s) - 1, 0, &m, &mm, &wm, "mask", err, errlen)) return -1;
        if (wm != a->width) FAIL("value and mask of different widths in `%.*s`", (int)n, s);
        a->value = v & m; a->mask = m;
        return 0;
    }
    return parse_hex(s, n, 1, &a->value, &a->mask, &a->width, "result", err, errlen);
}

/* Returns 1 for a case, 0 for a blank or comment line, -1 with a message in err.
   A leading UTF-8 byte-order mark (EF BB BF, as some editors write) is skipped. */
int ptxcvt_parse_line(const char *line, struct ptxcvt_case *out, char *err, size_t errlen) {
    if (strncmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3;
    size_t len = strcspn(line, "\r\n");
    const char *hash = memchr(line, '#', len), *end = hash ? hash : line + len, *p = line;
    const char *tok[PTXCVT_MAX_OPERANDS + 4];
    size_t toklen[PTXCVT_MAX_OPERANDS + 4];
    int ntok = 0;
    memset(out, 0, sizeof *out);
    if (len > PTXCVT_MAX_LINE) FAIL("line is longer than %d bytes", PTXCVT_MAX_LINE);
    out->comment = hash ? hash + 1 : NULL;
    out->fmt = -1;
    for (;;) { /* split on spaces and tabs */
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        if (p == end) break;
        if (ntok == PTXCVT_MAX_OPERANDS + 4) FAIL("too many fields (at most %d operands)", PTXCVT_MAX_OPERANDS);
        tok[ntok] = p;
        while (p < end && *p != ' ' && *p != '\t') p++;
        toklen[ntok] = (size_t)(p - tok[ntok]);
        ntok++;
    }
    if (ntok == 0) return 0;
    if (toklen[0] < 5 || memcmp(tok[0], "cvt.", 4) != 0) FAIL("`%.*s` is not a cvt instruction", (int)toklen[0], tok[0]);
    if (toklen[0] >= sizeof out->instr) FAIL("instruction name too long");
    memcpy(out->instr, tok[0], toklen[0]);
    for (const char *t = tok[0] + 4, *e = tok[0] + toklen[0]; t < e && out->fmt < 0;) {
        const char *dot = memchr(t, '.', (size_t)(e - t));
        out->fmt = format_index(t, (size_t)((dot ? dot : e) - t)); /* the first type is the destination */
        t = (dot ? dot : e) + 1;
    }
    if (out->fmt < 0) FAIL("`%s`: no known destination type", out->instr);
    for (int i = 1; i < ntok; i++) {
        if (toklen[i] == 2 && memcmp(tok[i], "=>", 2) == 0) {
            if (i + 2 < ntok) FAIL("unexpected `%.*s` after the result (comments start with #)", (int)toklen[i + 2], tok[i + 2]);
            if (i + 1 == ntok) break;
            for (const char *a = tok[i + 1], *e = a + toklen[i + 1]; a <= e; out->nalts++) {
                const char *bar = memchr(a, '|', (size_t)(e - a));
                if (out->nalts == PTXCVT_MAX_ALTS) FAIL("more than %d alternatives", PTXCVT_MAX_ALTS);
                if (parse_alt(a, (size_t)((bar ? bar : e) - a), out->fmt, &out->alt[out->nalts], err, errlen)) return -1;
                if (out->alt[out->nalts].width != out->alt[0].width) FAIL("alternatives of different widths");
                a = (bar ? bar : e) + 1;
            }
            break;
        }
        if (out->noperands == PTXCVT_MAX_OPERANDS) FAIL("more than %d operands", PTXCVT_MAX_OPERANDS);
        char what[24];
        uint64_t unused;
        snprintf(what, sizeof what, "operand %d", out->noperands + 1);
        if (parse_hex(tok[i], toklen[i], 0, &out->operand[out->noperands], &unused,
                      &out->operand_width[out->noperands], what, err, errlen)) return -1;
        out->noperands++;
    }
    if (out->noperands == 0) FAIL("`%s` has no operands: expected hex after the instruction", out->instr);
    return 1;
}

/* Whether a destination register holding `bits` is accepted (1) or not (0). */
int ptxcvt_accepts(const struct ptxcvt_case *c, uint64_t bits) {
    if (c->nalts == 0) return 1; /* no expected result */
    for (int i = 0; i < c->nalts; i++) {
        const struct ptxcvt_alt *a = &c->alt[i];
        if (bits & ~low_mask(a->width)) continue; /* wider than the register */
        if (a->kind == PTXCVT_NAN) {
            if (!(bits & ~low_mask(FORMATS[c->fmt].bits)) && ptxcvt_is_nan(c->fmt, bits >> FORMATS[c->fmt].shift)) return 1;
            continue;
        }
        int ok = (bits & a->mask) == a->value;
        for (unsigned l = 0; ok && a->lane_bits && l < a->width / a->lane_bits; l++)
            if (a->nan_lanes >> l & 1) ok = ptxcvt_is_nan(c->fmt, (bits >> (l * a->lane_bits)) & low_mask(a->lane_bits));
        if (ok) return 1;
    }
    return 0;
}

#ifndef PTXCVT_NO_MAIN
int main(int argc, char **argv) {
    static char line[PTXCVT_MAX_LINE + 3];
    char err[256];
    struct ptxcvt_case c;
    if (argc < 2) { fprintf(stderr, "usage: %s FILE...\n", argv[0]); return 2; }
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "r");
        long lineno = 0, count = 0;
        if (!f) { perror(argv[i]); return 2; }
        while (fgets(line, sizeof line, f)) {
            lineno++;
            int r = -1;
            if (!strchr(line, '\n') && !feof(f))
                snprintf(err, sizeof err, "line is longer than %d bytes", PTXCVT_MAX_LINE);
            else
                r = ptxcvt_parse_line(line, &c, err, sizeof err);
            if (r < 0) { fprintf(stderr, "%s:%ld: %s\n", argv[i], lineno, err); fclose(f); return 1; }
            if (r == 1) {
                count++;
                /* self-check: a single exact result must be accepted */
                if (c.nalts == 1 && c.alt[0].kind == PTXCVT_BITS && c.alt[0].mask == low_mask(c.alt[0].width) &&
                    !ptxcvt_accepts(&c, c.alt[0].value)) {
                    fprintf(stderr, "%s:%ld: self-check failed\n", argv[i], lineno); fclose(f); return 1;
                }
            }
        }
        fclose(f);
        printf("%s: %ld cases read\n", argv[i], count);
    }
    return 0;
}
#endif
