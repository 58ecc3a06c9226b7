/*
 * zoo_impl.c: a defect zoo for the diagnosis test (tests/zoo.rs), loaded
 * with `ptx-cvt check --target-lib` (the interface: capi/include/ptx_cvt_impl.h;
 * the Rust side: harness/src/shared_lib.rs).
 *
 *   cc -shared -fPIC -O2 -frounding-math -Icapi/include tests/zoo/zoo_impl.c -o libzoo_impl.so -lm
 *
 * It implements int->int, int->f32/f64 (.rn .rz .rm .rp) and f32/f64->s32/u32
 * (.rni .rzi .rmi .rpi) the way a C emulator does, with the host's
 * conversions under fesetround, and declines every other form. Planted
 * defects, each the kind such code has:
 *   1 via-f64:    s64/u64 -> f32 converts through double first (rounds twice).
 *   2 x86:        f32 -> s32 casts with the host: NaN and out-of-range give
 *                 0x80000000 (the x86 integer indefinite).
 *   3 sat:        int -> int ignores .sat (wraps).
 *   4 zext:       int -> int widening zero-extends signed sources.
 *   5 rz-f64:     int -> f64 ignores .rz (rounds to nearest).
 *   6 u32-wraps:  f32/f64 -> u32 wraps negative values instead of clamping to 0.
 * With ZOO_LOG set, each case a defect changed is appended there as
 * `instruction operands /WIDTH<TAB>defect` (WIDTH: the destination register's
 * bits; the test's ground truth).
 */
#include <fenv.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_cvt_impl.h"

static uint64_t low_mask(uint32_t width) {
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

struct form {
    char rnd[4];
    int sat, other; /* .sat; any other modifier */
    char d[8], a[8];
};

static int parse(const char *s, struct form *f) {
    char buf[128];
    char *parts[12];
    int n = 0;
    if (strlen(s) >= sizeof buf) return 1;
    strcpy(buf, s);
    for (char *t = strtok(buf, "."); t && n < 12; t = strtok(NULL, ".")) parts[n++] = t;
    if (n < 3 || strcmp(parts[0], "cvt") != 0) return 1;
    memset(f, 0, sizeof *f);
    for (int i = 1; i < n - 2; i++) {
        const char *m = parts[i];
        if (m[0] == 'r' && strlen(m) <= 3) strcpy(f->rnd, m);
        else if (strcmp(m, "sat") == 0) f->sat = 1;
        else f->other = 1;
    }
    if (strlen(parts[n - 2]) >= 8 || strlen(parts[n - 1]) >= 8) return 1;
    strcpy(f->d, parts[n - 2]);
    strcpy(f->a, parts[n - 1]);
    return 0;
}

static int is_int(const char *t) { return (t[0] == 's' || t[0] == 'u') && strlen(t) <= 3 && t[1] >= '1' && t[1] <= '8'; }
static int bits_of(const char *t) { return atoi(t + 1); }

/* The integer of type t in the low bits of a register. */
static int64_t read_int(const char *t, uint64_t reg, int *neg_big) {
    int n = bits_of(t);
    uint64_t v = reg & low_mask(n);
    *neg_big = 0;
    if (t[0] == 's' && n < 64 && (v >> (n - 1)) & 1) v |= ~low_mask(n);
    if (t[0] == 'u' && n == 64 && (v >> 63)) *neg_big = 1; /* above INT64_MAX */
    return (int64_t)v;
}

/* A type-width integer result in a dst_width-bit register. */
static uint64_t place_int(const char *t, uint64_t v, uint32_t dst_width) {
    int n = bits_of(t);
    v &= low_mask(n);
    if (t[0] == 's' && (v >> (n - 1)) & 1) v |= ~low_mask(n);
    return v & low_mask(dst_width);
}

static int mode_of(const char *r) {
    if (!strcmp(r, "rn") || !strcmp(r, "rni")) return FE_TONEAREST;
    if (!strcmp(r, "rz") || !strcmp(r, "rzi")) return FE_TOWARDZERO;
    if (!strcmp(r, "rm") || !strcmp(r, "rmi")) return FE_DOWNWARD;
    if (!strcmp(r, "rp") || !strcmp(r, "rpi")) return FE_UPWARD;
    return -1;
}

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void note(const char *instr, const uint64_t *ops, const uint32_t *widths, size_t n, uint32_t dst_width,
                 const char *defect) {
    const char *path = getenv("ZOO_LOG");
    if (!path) return;
    pthread_mutex_lock(&log_lock);
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%s", instr);
        for (size_t i = 0; i < n; i++) fprintf(f, " %0*llx", (int)(widths[i] / 4), (unsigned long long)ops[i]);
        fprintf(f, " /%u\t%s\n", dst_width, defect);
        fclose(f);
    }
    pthread_mutex_unlock(&log_lock);
}

static uint64_t f32_bits(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }
static uint64_t f64_bits(double x) { uint64_t b; memcpy(&b, &x, 8); return b; }

/* int -> int: `defects` turns the planted ones on. */
static uint64_t int_to_int(const struct form *f, uint64_t reg, uint32_t dst_width, int defects, const char **which) {
    int big;
    int64_t v = read_int(f->a, reg, &big);
    int n = bits_of(f->d);
    if (f->sat && !(defects && (*which = "sat"))) {
        int64_t lo = f->d[0] == 's' ? (n == 64 ? INT64_MIN : -((int64_t)1 << (n - 1))) : 0;
        uint64_t hi = f->d[0] == 's' ? low_mask(n - 1) : low_mask(n);
        if (big) return place_int(f->d, hi, dst_width);
        if (v < lo) v = lo;
        else if (v >= 0 && (uint64_t)v > hi) v = (int64_t)hi;
        return place_int(f->d, (uint64_t)v, dst_width);
    }
    if (defects && !f->sat && f->a[0] == 's' && bits_of(f->a) < n && v < 0) {
        *which = "zext";
        v = (int64_t)((uint64_t)v & low_mask(bits_of(f->a)));
    }
    return place_int(f->d, (uint64_t)v, dst_width);
}

static uint64_t int_to_float(const struct form *f, uint64_t reg, int defects, const char **which) {
    int big;
    int64_t v = read_int(f->a, reg, &big);
    uint64_t u = reg & low_mask(bits_of(f->a));
    int mode = mode_of(f->rnd);
    int d64 = !strcmp(f->d, "f64");
    if (defects && d64 && mode == FE_TOWARDZERO) {
        *which = "rz-f64";
        mode = FE_TONEAREST;
    }
    fesetround(mode);
    uint64_t out;
    if (d64) {
        out = f64_bits(f->a[0] == 'u' ? (double)u : (double)v);
    } else if (defects && bits_of(f->a) == 64) {
        *which = "via-f64";
        volatile double through = f->a[0] == 'u' ? (double)u : (double)v;
        out = f32_bits((float)through);
    } else {
        out = f32_bits(f->a[0] == 'u' ? (float)u : (float)v);
    }
    fesetround(FE_TONEAREST);
    return out;
}

static uint64_t float_to_int(const struct form *f, uint64_t reg, uint32_t dst_width, int defects, const char **which) {
    int f64 = !strcmp(f->a, "f64");
    double x;
    if (f64) memcpy(&x, &reg, 8);
    else { uint32_t b = (uint32_t)reg; float y; memcpy(&y, &b, 4); x = y; }
    int s = f->d[0] == 's';
    double lo = s ? -2147483648.0 : 0.0, hi = s ? 2147483647.0 : 4294967295.0;
    if (defects && s && !f64) {
        *which = "x86";
        fesetround(mode_of(f->rnd));
        double r = nearbyint(x);
        fesetround(FE_TONEAREST);
        int32_t c = (isnan(r) || r < lo || r > hi) ? INT32_MIN : (int32_t)r;
        return place_int(f->d, (uint32_t)c, dst_width);
    }
    if (isnan(x)) return place_int(f->d, f64 ? 0x80000000u : 0, dst_width);
    fesetround(mode_of(f->rnd));
    double r = nearbyint(x);
    fesetround(FE_TONEAREST);
    if (defects && !s && r < 0 && r >= -9.2e18) {
        *which = "u32-wraps";
        return place_int(f->d, (uint64_t)(int64_t)r, dst_width);
    }
    if (r < lo) r = lo;
    if (r > hi) r = hi;
    return place_int(f->d, s ? (uint64_t)(int64_t)r : (uint64_t)r, dst_width);
}

/* The answer, with the planted defects or without; 1 when not handled. */
static int answer(const struct form *f, const uint64_t *ops, size_t n, uint32_t dst_width, int defects,
                  uint64_t *result, const char **which) {
    if (n != 1 || f->other) return 1;
    if (is_int(f->a) && is_int(f->d)) {
        if (f->rnd[0]) return 1;
        *result = int_to_int(f, ops[0], dst_width, defects, which);
    } else if (is_int(f->a) && (!strcmp(f->d, "f32") || !strcmp(f->d, "f64"))) {
        if (f->sat || strlen(f->rnd) != 2 || mode_of(f->rnd) < 0 || dst_width != (f->d[1] == '3' ? 32u : 64u)) return 1;
        *result = int_to_float(f, ops[0], defects, which);
    } else if ((!strcmp(f->a, "f32") || !strcmp(f->a, "f64")) && (!strcmp(f->d, "s32") || !strcmp(f->d, "u32"))) {
        if (f->sat || strlen(f->rnd) != 3 || mode_of(f->rnd) < 0) return 1;
        *result = float_to_int(f, ops[0], dst_width, defects, which);
    } else {
        return 1;
    }
    return 0;
}

int cvt_impl(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths, size_t n_operands,
             uint32_t dst_width, uint64_t *result) {
    struct form f;
    if (parse(instruction, &f)) return 1;
    uint64_t right = 0, got = 0;
    const char *which = NULL, *none = NULL;
    if (answer(&f, operands, n_operands, dst_width, 0, &right, &none)) return 1;
    answer(&f, operands, n_operands, dst_width, 1, &got, &which);
    if (got != right && which) note(instruction, operands, operand_widths, n_operands, dst_width, which);
    *result = got;
    return 0;
}
