/*
 * convert.c: a bit-twiddling converter for the common PTX cvt forms, written
 * the way hand-written converters and C emulators are: decode a float into
 * sign, exponent and significand, shift, round with guard and sticky bits,
 * re-bias, clamp. No host float arithmetic.
 *
 * It is the base of the calibration corpus (calib/README.md): calib/mutate.py
 * plants mutations into the code between the MUTATE BEGIN and MUTATE END
 * markers and writes convert_mut.c, where each mutation is switched on at run
 * time (PTX_MUT). Built alone it is a correct implementation of the forms it
 * answers (`ptx-cvt check --target-lib` reports no mismatch) and declines the
 * rest:
 *
 *   cc -shared -fPIC -O2 -Icapi/include calib/c/convert.c -o libconvert.so
 *
 * Forms: f32/f64/f16/bf16 -> f16/bf16 (.rn .rz .rm .rp, .sat, .relu,
 * .satfinite, .ftz); int -> f16/bf16/f32/f64 (.rn .rz .rm .rp, .sat, .ftz);
 * f32/f64 -> s8..u64 (.rni .rzi .rmi .rpi, .sat, .ftz); f32 pairs, f16x2 and
 * bf16x2 -> e4m3x2, e5m2x2, e2m3x2, e3m2x2, e2m1x2 (.rn .satfinite, .relu),
 * f16x2/bf16x2 (from f32 pairs: .rn .rz, .relu, .satfinite), ue8m0x2 (.rz
 * .rp, .satfinite); e4m3x2, e5m2x2, e2m3x2, e3m2x2, e2m1x2 -> f16x2/bf16x2
 * (.rn, .relu); ue8m0x2 -> bf16x2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_cvt_impl.h"

#ifndef MUT
#define MUT(i) 0
#endif

/* Format kinds. */
enum { K_INT = 0, K_IEEE = 1, K_FN = 2, K_NONE = 3, K_UE8 = 4 };
/* Rounding modes. */
enum { RN = 0, RZ = 1, RM = 2, RP = 3 };
/* Value classes. */
enum { C_ZERO = 0, C_FIN = 1, C_INF = 2, C_NAN = 3 };

struct fmt {
    const char *name;
    int kind, bits, ebits, mbits, bias, is_signed;
};

static const struct fmt FORMATS[] = {
    {"f64", K_IEEE, 64, 11, 52, 1023, 1}, {"f32", K_IEEE, 32, 8, 23, 127, 1},
    {"f16", K_IEEE, 16, 5, 10, 15, 1},    {"bf16", K_IEEE, 16, 8, 7, 127, 1},
    {"e4m3", K_FN, 8, 4, 3, 7, 1},        {"e5m2", K_IEEE, 8, 5, 2, 15, 1},
    {"e2m3", K_NONE, 6, 2, 3, 1, 1},      {"e3m2", K_NONE, 6, 3, 2, 3, 1},
    {"e2m1", K_NONE, 4, 2, 1, 1, 1},      {"ue8m0", K_UE8, 8, 8, 0, 127, 0},
    {"s8", K_INT, 8, 0, 0, 0, 1},         {"s16", K_INT, 16, 0, 0, 0, 1},
    {"s32", K_INT, 32, 0, 0, 0, 1},       {"s64", K_INT, 64, 0, 0, 0, 1},
    {"u8", K_INT, 8, 0, 0, 0, 0},         {"u16", K_INT, 16, 0, 0, 0, 0},
    {"u32", K_INT, 32, 0, 0, 0, 0},       {"u64", K_INT, 64, 0, 0, 0, 0},
};

struct val {
    int s, cls;
    uint64_t m; /* the value is m * 2^e */
    int e;
};

struct opts {
    int mode, sat, relu, satfinite, ftz;
};

/* MUTATE BEGIN */

static uint64_t ones(int n) {
    if (n >= 64) return ~(uint64_t)0;
    return ((uint64_t)1 << n) - 1;
}

/* The largest finite magnitude code of a float format. */
static uint64_t max_code(const struct fmt *f) {
    if (f->kind == K_IEEE) return (ones(f->ebits) << f->mbits) - 1;
    if (f->kind == K_FN) return ones(f->ebits + f->mbits) - 1;
    if (f->kind == K_UE8) return 0xfe;
    return ones(f->ebits + f->mbits);
}

static uint64_t inf_code(const struct fmt *f) { return ones(f->ebits) << f->mbits; }

static uint64_t nan_code(const struct fmt *f) { return ones(f->ebits + f->mbits); }

static uint64_t sign_bit(const struct fmt *f) { return (uint64_t)1 << (f->bits - 1); }

/* The value of the float code `c` of format `f`. */
static struct val decode(const struct fmt *f, uint64_t c) {
    struct val v = {0, C_ZERO, 0, 0};
    if (f->kind == K_UE8) {
        c &= 0xff;
        if (c == 0xff) {
            v.cls = C_NAN;
            return v;
        }
        v.cls = C_FIN;
        v.m = 1;
        v.e = (int)c - 127;
        return v;
    }
    c &= ones(f->bits);
    v.s = (int)(c >> (f->bits - 1)) & 1;
    uint64_t frac = c & ones(f->mbits);
    int ex = (int)((c >> f->mbits) & ones(f->ebits));
    if (f->kind == K_IEEE && ex == (int)ones(f->ebits)) {
        v.cls = frac ? C_NAN : C_INF;
        return v;
    }
    if (f->kind == K_FN && ex == (int)ones(f->ebits) && frac == ones(f->mbits)) {
        v.cls = C_NAN;
        return v;
    }
    if (ex == 0) {
        if (frac == 0) return v;
        v.cls = C_FIN;
        v.m = frac;
        v.e = 1 - f->bias - f->mbits;
        return v;
    }
    v.cls = C_FIN;
    v.m = frac | ((uint64_t)1 << f->mbits);
    v.e = ex - f->bias - f->mbits;
    return v;
}

/* m shifted right by sh bits and rounded by `mode` for sign s. */
static uint64_t shift_round(uint64_t m, int sh, int s, int mode) {
    uint64_t r, guard, sticky;
    if (sh <= 0) return m;
    if (sh > 64) {
        r = 0;
        guard = 0;
        sticky = m != 0;
    } else if (sh == 64) {
        r = 0;
        guard = m >> 63;
        sticky = (m << 1) != 0;
    } else {
        r = m >> sh;
        guard = (m >> (sh - 1)) & 1;
        sticky = (m & ones(sh - 1)) != 0;
    }
    if (mode == RN) {
        if (guard && (sticky || (r & 1))) r = r + 1;
    } else if (mode == RM) {
        if (s && (guard || sticky)) r = r + 1;
    } else if (mode == RP) {
        if (!s && (guard || sticky)) r = r + 1;
    }
    return r;
}

/* The code of finite nonzero |v| in ue8m0 (.rz or .rp). */
static uint64_t encode_ue8(const struct fmt *f, struct val v, const struct opts *o) {
    int lz = __builtin_clzll(v.m);
    int top = v.e + 63 - lz;
    int exact = (v.m & (v.m - 1)) == 0;
    int ex = top;
    if (o->mode == RP && !exact) ex = ex + 1;
    int code = ex + f->bias;
    if (code < 0) return 0;
    if (code > 254) return o->satfinite ? 0xfe : 0xff;
    return (uint64_t)code;
}

/* The code of a float value in format f, with the modifiers of o. */
static uint64_t encode(const struct fmt *f, struct val v, const struct opts *o) {
    uint64_t sb = sign_bit(f);
    uint64_t one = (uint64_t)f->bias << f->mbits;
    if (v.cls == C_NAN) {
        if (o->sat) return 0;
        if (f->kind == K_NONE) return max_code(f);
        return nan_code(f);
    }
    if (f->kind == K_UE8) {
        if (v.cls == C_INF) return o->satfinite ? 0xfe : 0xff;
        if (v.cls == C_ZERO) return 0;
        return encode_ue8(f, v, o);
    }
    if ((o->relu || o->sat) && v.s) return 0;
    if (v.cls == C_ZERO) return v.s ? sb : 0;
    if (v.cls == C_INF) {
        if (o->sat) return one;
        if (o->satfinite || f->kind != K_IEEE) return (v.s ? sb : 0) | max_code(f);
        return (v.s ? sb : 0) | inf_code(f);
    }
    int lz = __builtin_clzll(v.m);
    uint64_t m = v.m << lz;
    int e = v.e - lz;
    int top = e + 63;
    int emin = 1 - f->bias;
    int q = (top < emin ? emin : top) - f->mbits;
    uint64_t r = shift_round(m, q - e, v.s, o->mode);
    if (r >> (f->mbits + 1)) {
        r = r >> 1;
        q = q + 1;
    }
    if (r == 0) return v.s ? sb : 0;
    uint64_t mag;
    int over = 0;
    if (r >> f->mbits) {
        int ex = q + f->mbits + f->bias;
        if (ex > (int)ones(f->ebits)) over = 1;
        mag = ((uint64_t)ex << f->mbits) | (r & ones(f->mbits));
    } else {
        mag = r;
    }
    if (over || mag > max_code(f)) {
        int to_max = o->satfinite || f->kind != K_IEEE || o->mode == RZ || (o->mode == RM && !v.s) ||
                     (o->mode == RP && v.s);
        mag = to_max ? max_code(f) : inf_code(f);
    }
    if (o->sat && mag > one) mag = one;
    if (o->ftz && f->bits == 32 && (mag >> f->mbits) == 0) mag = 0;
    return (v.s ? sb : 0) | mag;
}

/* A float value rounded to an integer of format d (float -> int). */
static uint64_t to_int(const struct fmt *d, const struct fmt *a, struct val v, const struct opts *o) {
    int n = d->bits;
    uint64_t maxpos = d->is_signed ? ones(n - 1) : ones(n);
    uint64_t minneg = d->is_signed ? ones(n - 1) + 1 : 0; /* magnitude of the minimum */
    if (v.cls == C_NAN) {
        if (a->bits == 64 || n == 64) return (uint64_t)1 << (n - 1);
        return 0;
    }
    if (v.cls == C_ZERO) return 0;
    if (v.cls == C_INF) return v.s ? (d->is_signed ? minneg : 0) : maxpos;
    uint64_t mag;
    int huge = 0;
    if (v.e >= 0) {
        int len = 64 - __builtin_clzll(v.m);
        if (len + v.e > 64) huge = 1;
        mag = huge ? 0 : v.m << v.e;
    } else {
        mag = shift_round(v.m, -v.e, v.s, o->mode);
    }
    if (v.s) {
        if (!d->is_signed) return 0;
        if (huge || mag > minneg) return minneg;
        if (mag == 0) return 0;
        return (~mag + 1) & ones(n);
    }
    if (huge || mag > maxpos) return maxpos;
    return mag;
}

/* The value of integer register bits of format a. */
static struct val int_value(const struct fmt *a, uint64_t reg) {
    struct val v = {0, C_ZERO, 0, 0};
    uint64_t x = reg & ones(a->bits);
    if (a->is_signed && (x >> (a->bits - 1)) & 1) {
        v.s = 1;
        x = (~x + 1) & ones(a->bits);
    }
    if (x == 0) {
        v.s = 0;
        return v;
    }
    v.cls = C_FIN;
    v.m = x;
    return v;
}

/* One lane or scalar: source code c of format a to format d. */
static uint64_t convert(const struct fmt *d, const struct fmt *a, uint64_t c, const struct opts *o) {
    struct val v;
    if (a->kind == K_INT) v = int_value(a, c);
    else v = decode(a, c);
    if (o->ftz && a->bits == 32 && a->kind == K_IEEE && v.cls == C_FIN && d->mbits != 10 &&
        (v.m >> a->mbits) == 0) {
        v.cls = C_ZERO;
    }
    if (d->kind == K_INT) return to_int(d, a, v, o);
    return encode(d, v, o);
}

/* MUTATE END */

/* Register masks of answer(), kept out of the mutated region so that a
 * mutant never sets bits above the destination register. */
static uint64_t reg_mask(int n) { return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1; }

static const struct fmt *find_fmt(const char *name) {
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++)
        if (strcmp(FORMATS[i].name, name) == 0) return &FORMATS[i];
    return NULL;
}

static __thread char reason_buf[160];

static int decline(const char *why, const char *instr) {
    snprintf(reason_buf, sizeof reason_buf, "%s", why);
    (void)instr;
    return 1;
}

const char *cvt_impl_reason(void) { return reason_buf[0] ? reason_buf : NULL; }

struct form {
    int rnd;   /* -1 none, else RN..RP */
    int irnd;  /* an integer rounding (.rni ...) */
    int sat, relu, satfinite, ftz, other;
    char d[16], a[16];
    int d_lanes, a_lanes; /* 2 for x2 types */
};

static int rnd_of(const char *m, int *irnd) {
    static const char *names[] = {"rn", "rz", "rm", "rp"};
    for (int i = 0; i < 4; i++) {
        size_t k = strlen(names[i]);
        if (strncmp(m, names[i], k) == 0 && (m[k] == 0 || (m[k] == 'i' && m[k + 1] == 0))) {
            *irnd = m[k] == 'i';
            return i;
        }
    }
    return -1;
}

static int split_type(const char *t, char *base, int *lanes) {
    size_t n = strlen(t);
    if (n >= 15) return 1;
    strcpy(base, t);
    *lanes = 1;
    if (n > 2 && strcmp(t + n - 2, "x2") == 0) {
        base[n - 2] = 0;
        *lanes = 2;
    }
    return 0;
}

static int parse(const char *s, struct form *f) {
    char buf[160];
    char *parts[16];
    int n = 0;
    if (strlen(s) >= sizeof buf) return 1;
    strcpy(buf, s);
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && n < 16; t = strtok_r(NULL, ".", &save)) parts[n++] = t;
    if (n < 3 || strcmp(parts[0], "cvt") != 0) return 1;
    memset(f, 0, sizeof *f);
    f->rnd = -1;
    for (int i = 1; i < n - 2; i++) {
        const char *m = parts[i];
        int irnd = 0, r = rnd_of(m, &irnd);
        if (r >= 0 && f->rnd < 0) {
            f->rnd = r;
            f->irnd = irnd;
        } else if (!strcmp(m, "sat")) f->sat = 1;
        else if (!strcmp(m, "relu")) f->relu = 1;
        else if (!strcmp(m, "satfinite")) f->satfinite = 1;
        else if (!strcmp(m, "ftz")) f->ftz = 1;
        else f->other = 1;
    }
    if (split_type(parts[n - 2], f->d, &f->d_lanes) || split_type(parts[n - 1], f->a, &f->a_lanes)) return 1;
    return 0;
}

static int is_float_name(const char *t) {
    return !strcmp(t, "f16") || !strcmp(t, "bf16") || !strcmp(t, "f32") || !strcmp(t, "f64");
}

/* The conversion with the active mutations; 0 when answered. */
static int answer(const struct form *f, const uint64_t *ops, const uint32_t *widths, size_t n, uint32_t dst_width,
                  uint64_t *result) {
    const struct fmt *d = find_fmt(f->d), *a = find_fmt(f->a);
    struct opts o = {f->rnd < 0 ? RN : f->rnd, f->sat, f->relu, f->satfinite, f->ftz};
    (void)widths;
    if (f->d_lanes == 1 && f->a_lanes == 1) {
        if (n != 1) return 1;
        *result = convert(d, a, ops[0], &o);
        if (d->kind == K_INT && d->is_signed && d->bits < 64 && ((*result >> (d->bits - 1)) & 1))
            *result |= ~reg_mask(d->bits);
        *result &= reg_mask((int)dst_width);
        return 0;
    }
    int lane_bits = d->bits == 6 ? 8 : d->bits;
    uint64_t hi, lo;
    if (f->a_lanes == 2) {
        if (n != 1) return 1;
        int ab = a->bits == 6 ? 8 : a->bits;
        hi = convert(d, a, (ops[0] >> ab) & reg_mask(ab), &o);
        lo = convert(d, a, ops[0] & reg_mask(ab), &o);
    } else {
        if (n != 2) return 1;
        hi = convert(d, a, ops[0], &o);
        lo = convert(d, a, ops[1], &o);
    }
    hi &= reg_mask(d->bits);
    lo &= reg_mask(d->bits);
    *result = ((hi << lane_bits) | lo) & reg_mask((int)dst_width);
    return 0;
}

/* Which forms are handled (the decline rules, never mutated). */
static const char *unsupported(const struct form *f) {
    const struct fmt *d = find_fmt(f->d), *a = find_fmt(f->a);
    if (f->other) return "modifier not implemented";
    if (!d || !a) return "type not implemented";
    int dl = f->d_lanes, al = f->a_lanes;
    if (dl == 1 && al == 1) {
        if (d->kind == K_INT && a->kind == K_INT) return "int to int not implemented";
        if (d->kind == K_INT) {
            if (!is_float_name(f->a)) return "float to int: source not implemented";
            if (!f->irnd || f->rnd < 0) return "float to int needs an integer rounding";
            return NULL;
        }
        if (!is_float_name(f->d)) return "scalar destination not implemented";
        if (f->irnd) return "round to integral not implemented";
        if (a->kind == K_INT) {
            if (f->rnd < 0) return "int to float needs a rounding";
            return NULL;
        }
        if (!is_float_name(f->a)) return "scalar source not implemented";
        if (strcmp(f->d, "f16") && strcmp(f->d, "bf16")) return "float destination not implemented";
        if (!strcmp(f->d, f->a)) return "same type not implemented";
        return NULL;
    }
    if (f->rnd < 0 || f->irnd || f->ftz || f->sat) return "packed modifiers not implemented";
    if (dl == 2 && al == 1) {
        if (strcmp(f->a, "f32")) return "packed from scalar: source not implemented";
        if (d->kind == K_UE8) return (f->rnd == RZ || f->rnd == RP) ? NULL : "ue8m0 rounding";
        if (!strcmp(f->d, "f16") || !strcmp(f->d, "bf16")) return (f->rnd == RN || f->rnd == RZ) ? NULL : "rounding";
        if (d->kind == K_INT || d->bits > 8) return "packed destination not implemented";
        return (f->rnd == RN && f->satfinite) ? NULL : "rounding";
    }
    if (dl == 2 && al == 2) {
        if (!strcmp(f->a, "f16") || !strcmp(f->a, "bf16")) {
            if (d->kind == K_UE8) return (f->rnd == RZ || f->rnd == RP) ? NULL : "ue8m0 rounding";
            if (d->kind == K_INT || d->bits > 8) return "packed destination not implemented";
            return (f->rnd == RN && f->satfinite) ? NULL : "rounding";
        }
        if (strcmp(f->d, "f16") && strcmp(f->d, "bf16")) return "widening destination not implemented";
        if (a->kind == K_INT || a->bits > 8) return "widening source not implemented";
        return f->rnd == RN ? NULL : "rounding";
    }
    return "shape not implemented";
}

/* Ground truth for the calibration corpus (see calib/README.md). */
#ifdef PTX_MUT_SITES
#include <pthread.h>

static unsigned char mut_full[(PTX_MUT_SITES + 8) / 8];
static unsigned char mut_none[(PTX_MUT_SITES + 8) / 8];
static int mut_ids[PTX_MUT_SITES + 1];
static int mut_count;
static const char *mut_log;
static pthread_once_t mut_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mut_lock = PTHREAD_MUTEX_INITIALIZER;
/* PTX_MUT_SCREEN: how many answered cases each single mutation changes,
 * written there when the process exits. */
static const char *mut_screen;
static unsigned long mut_changed[PTX_MUT_SITES + 1];
static unsigned long mut_answered;

__attribute__((destructor)) static void mut_screen_write(void) {
    if (!mut_screen) return;
    FILE *fp = fopen(mut_screen, "w");
    if (!fp) return;
    fprintf(fp, "answered\t%lu\n", mut_answered);
    for (int i = 0; i < PTX_MUT_SITES; i++) fprintf(fp, "%d\t%lu\n", i, mut_changed[i]);
    fclose(fp);
}
static __thread const unsigned char *mut_cur = mut_none;

static void mut_init(void) {
    const char *s = getenv("PTX_MUT");
    mut_log = getenv("PTX_MUT_LOG");
    if (mut_log && !*mut_log) mut_log = NULL;
    mut_screen = getenv("PTX_MUT_SCREEN");
    if (mut_screen && !*mut_screen) mut_screen = NULL;
    while (s && *s) {
        char *end;
        long id = strtol(s, &end, 10);
        if (end == s) {
            s++;
            continue;
        }
        if (id >= 0 && id < PTX_MUT_SITES && !(mut_full[id / 8] >> (id % 8) & 1)) {
            mut_full[id / 8] |= (unsigned char)(1 << (id % 8));
            mut_ids[mut_count++] = (int)id;
        }
        s = end;
    }
    /* ids in increasing order */
    for (int i = 1; i < mut_count; i++)
        for (int j = i; j > 0 && mut_ids[j - 1] > mut_ids[j]; j--) {
            int t = mut_ids[j];
            mut_ids[j] = mut_ids[j - 1];
            mut_ids[j - 1] = t;
        }
}

static void mut_note(const char *instr, const uint64_t *ops, const uint32_t *widths, size_t n, uint32_t dst_width,
                     const char *defect) {
    pthread_mutex_lock(&mut_lock);
    FILE *fp = fopen(mut_log, "a");
    if (fp) {
        char line[512];
        int k = snprintf(line, sizeof line, "%s", instr);
        for (size_t i = 0; i < n && k < (int)sizeof line; i++)
            k += snprintf(line + k, sizeof line - k, " %0*llx", (int)(widths[i] / 4), (unsigned long long)ops[i]);
        for (char *p = line; *p; p++)
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        fprintf(fp, "%s /%u\t%s\n", line, dst_width, defect);
        fclose(fp);
    }
    pthread_mutex_unlock(&mut_lock);
}
#endif

int cvt_impl(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths, size_t n_operands,
             uint32_t dst_width, uint64_t *result) {
    struct form f;
    reason_buf[0] = 0;
    if (parse(instruction, &f)) return decline("unparsed instruction", instruction);
    const char *why = unsupported(&f);
    if (why) return decline(why, instruction);
    if (dst_width > 64) return decline("register too wide", instruction);
#ifdef PTX_MUT_SITES
    pthread_once(&mut_once, mut_init);
    uint64_t base = 0, got = 0;
    mut_cur = mut_none;
    if (answer(&f, operands, operand_widths, n_operands, dst_width, &base)) return decline("operands", instruction);
    if (mut_screen) {
        unsigned char one[sizeof mut_full];
        memset(one, 0, sizeof one);
        mut_cur = one;
        for (int i = 0; i < PTX_MUT_SITES; i++) {
            uint64_t alt = 0;
            one[i / 8] = (unsigned char)(1 << (i % 8));
            answer(&f, operands, operand_widths, n_operands, dst_width, &alt);
            one[i / 8] = 0;
            if (alt != base) __atomic_fetch_add(&mut_changed[i], 1, __ATOMIC_RELAXED);
        }
        __atomic_fetch_add(&mut_answered, 1, __ATOMIC_RELAXED);
        mut_cur = mut_none;
    }
    if (mut_count == 0) {
        *result = base;
        return 0;
    }
    mut_cur = mut_full;
    answer(&f, operands, operand_widths, n_operands, dst_width, &got);
    if (got != base && mut_log) {
        unsigned char mask[sizeof mut_full];
        char defect[512] = "";
        size_t k = 0;
        for (int i = 0; i < mut_count; i++) {
            uint64_t back = 0;
            memcpy(mask, mut_full, sizeof mask);
            mask[mut_ids[i] / 8] &= (unsigned char)~(1 << (mut_ids[i] % 8));
            mut_cur = mask;
            answer(&f, operands, operand_widths, n_operands, dst_width, &back);
            if (back == base && k < sizeof defect - 16)
                k += snprintf(defect + k, sizeof defect - k, "%sm%d", k ? "," : "", mut_ids[i]);
        }
        mut_note(instruction, operands, operand_widths, n_operands, dst_width, k ? defect : "interaction");
    }
    mut_cur = mut_none;
    *result = got;
    return 0;
#else
    if (answer(&f, operands, operand_widths, n_operands, dst_width, result)) return decline("operands", instruction);
    return 0;
#endif
}
