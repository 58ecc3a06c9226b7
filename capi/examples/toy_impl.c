/*
 * toy_impl.c: a tiny cvt implementation exporting the ptx_cvt_impl.h
 * interface, used by the tests of harness/src/shared_lib.rs (which compile it
 * into a shared library and compare it with the oracle).
 *
 *   cc -shared -fPIC -O2 -Icapi/include capi/examples/toy_impl.c -o libtoy_impl.so
 *
 * It handles three forms and rejects every other one (returns 1):
 *   cvt.s16.s8      sign-extend the low byte; the signed result is
 *                   sign-extended into the whole destination register.
 *   cvt.u32.u16     zero-extend the low 16 bits.
 *   cvt.rn.f16.f32  round to nearest even, written out bit by bit (normal,
 *                   subnormal, overflow to infinity; NaN -> canonical 7fff,
 *                   which is what sm_90 emits).
 * A deliberately wrong variant is exported as cvt_impl_truncating: it
 * rounds cvt.rn.f16.f32 toward zero, so tests can see a mismatch.
 * Another, cvt_impl_buggy, has two bugs a real emulator could have:
 *   - cvt.rn.f16.f32 writes NaN as 7e00 (sm_90 writes the canonical 7fff);
 *   - cvt.u32.u16 does not chop a source register wider than 16 bits.
 */
#include <stdint.h>
#include <string.h>

#include "ptx_cvt_impl.h"

static uint64_t low_mask(uint32_t width) {
    return width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1);
}

/* f32 bits -> f16 bits, round to nearest even (truncate when `toward_zero`). */
static uint16_t f32_to_f16(uint32_t x, int toward_zero) {
    uint32_t sign = (x >> 16) & 0x8000;
    int32_t exp = (int32_t)((x >> 23) & 0xff);
    uint32_t man = x & 0x7fffff;
    if (exp == 0xff) {
        return man ? 0x7fff : (uint16_t)(sign | 0x7c00); /* NaN: canonical; Inf keeps its sign */
    }
    if (exp == 0 && man == 0) {
        return (uint16_t)sign;
    }
    /* Value = sig * 2^(e), with sig holding the implicit bit for normals. */
    uint32_t sig = exp ? (man | 0x800000) : man;
    int32_t e = exp ? exp - 127 - 23 : -126 - 23;
    /* The f16 result as an integer multiple of 2^-24 (subnormal grid) or of
       2^(E-10) for normals: shift sig so its unit is the f16 ulp. */
    int32_t msb = 31 - __builtin_clz(sig); /* sig != 0 here */
    int32_t unbiased = msb + e;             /* floor(log2(value)) */
    int32_t ulp_exp = unbiased < -14 ? -24 : unbiased - 10;
    int32_t shift = ulp_exp - e;            /* bits of sig below the f16 ulp */
    uint32_t q;
    if (shift <= 0) {
        q = sig << -shift; /* exact (cannot happen from f32 except for large values) */
    } else if (shift > 31) {
        q = 0;
        if (!toward_zero && shift == 32 && sig > 0x80000000u) {
            q = 1;
        }
    } else {
        uint32_t rem = sig & ((1u << shift) - 1);
        uint32_t half = 1u << (shift - 1);
        q = sig >> shift;
        if (!toward_zero && (rem > half || (rem == half && (q & 1)))) {
            q++;
        }
    }
    /* q counts ulps of 2^ulp_exp; encode. For normals q is in [2^10, 2^11]. */
    uint32_t bits;
    if (ulp_exp == -24) {
        bits = q; /* subnormal, or q == 0x400: the smallest normal, same encoding */
    } else {
        int32_t biased = ulp_exp + 10 + 15;
        if (q == 0x800) { /* rounding carried into the next binade */
            q = 0x400;
            biased++;
        }
        bits = ((uint32_t)biased << 10) | (q & 0x3ff);
    }
    if (bits >= 0x7c00) {
        bits = toward_zero ? 0x7bff : 0x7c00;
    }
    return (uint16_t)(sign | bits);
}

enum toy_bugs { TOY_RIGHT, TOY_TRUNCATING, TOY_BUGGY };

static int toy(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths,
               size_t n_operands, uint32_t dst_width, uint64_t *result, enum toy_bugs bugs) {
    if (instruction == NULL || operands == NULL || operand_widths == NULL || result == NULL || n_operands != 1) {
        return 1;
    }
    uint64_t a = operands[0];
    if (bugs == TOY_BUGGY && strcmp(instruction, "cvt.u32.u16") == 0) {
        *result = a & 0xffffffffu; /* bug: the source register is not chopped to 16 bits */
        return 0;
    }
    if (bugs == TOY_BUGGY && strcmp(instruction, "cvt.rn.f16.f32") == 0 && (a & 0x7f800000u) == 0x7f800000u &&
        (a & 0x7fffffu) != 0) {
        *result = 0x7e00; /* bug: not the canonical NaN of sm_90 */
        return 0;
    }
    if (strcmp(instruction, "cvt.s16.s8") == 0) {
        int64_t v = (int8_t)(uint8_t)(a & 0xff);
        *result = (uint64_t)v & low_mask(dst_width);
        return 0;
    }
    if (strcmp(instruction, "cvt.u32.u16") == 0) {
        *result = a & 0xffff;
        return 0;
    }
    if (strcmp(instruction, "cvt.rn.f16.f32") == 0) {
        *result = f32_to_f16((uint32_t)(a & 0xffffffffu), bugs == TOY_TRUNCATING);
        return 0;
    }
    return 1;
}

int cvt_impl(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths,
             size_t n_operands, uint32_t dst_width, uint64_t *result) {
    return toy(instruction, operands, operand_widths, n_operands, dst_width, result, TOY_RIGHT);
}

int cvt_impl_truncating(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths,
                        size_t n_operands, uint32_t dst_width, uint64_t *result) {
    return toy(instruction, operands, operand_widths, n_operands, dst_width, result, TOY_TRUNCATING);
}

int cvt_impl_buggy(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths,
                   size_t n_operands, uint32_t dst_width, uint64_t *result) {
    return toy(instruction, operands, operand_widths, n_operands, dst_width, result, TOY_BUGGY);
}
