/*
 * prepared_demo.c: the prepared interface of ptx_cvt.h as a simulator uses
 * it: prepare once, evaluate single values (ptx_cvt_eval_prepared, and
 * ptx_cvt_eval1 for hot loops) and arrays, compare with the per-call
 * ptx_cvt_eval. Prints "all checks passed" (tests/c_abi.rs runs it).
 *
 *   cargo build --release -p ptx-cvt-capi
 *   cc -std=c99 -Icapi/include capi/examples/prepared_demo.c -Ltarget/release \
 *      -lptx_cvt_capi -Wl,-rpath,target/release -o prepared_demo && ./prepared_demo
 */
#include <stdio.h>
#include <string.h>

#include "ptx_cvt.h"

static int failures = 0;

static void expect(int ok, const char *what) {
    if (!ok) {
        printf("FAIL: %s\n", what);
        failures++;
    }
}

int main(void) {
    char err[PTX_CVT_ERR_LEN];
    ptx_cvt_prepared *h = NULL;
    uint32_t widths[1] = {32};
    /* Legality is checked once, here: e4m3x2 needs sm_89 or later. */
    expect(ptx_cvt_prepare("cvt.rn.satfinite.e4m3x2.f32", (uint32_t[]){32, 32}, 2, 16, "sm_80", NULL, NULL, &h,
                           err, sizeof err) == PTX_CVT_EILLEGAL && h == NULL,
           "an instruction illegal on the target is refused");
    if (ptx_cvt_prepare("cvt.rn.f16.f32", widths, 1, 16, "sm_90", NULL, NULL, &h, err, sizeof err) != PTX_CVT_OK) {
        printf("FAIL: prepare: %s\n", err);
        return 1;
    }
    /* One value: 1.0 is exact in f16 (PTX ISA, cvt; IEEE 754 binary16). */
    uint64_t one = 0x3f800000, bits = 0, mask = 0;
    expect(ptx_cvt_eval_prepared(h, &one, &bits, &mask, err, sizeof err) == PTX_CVT_OK && bits == 0x3c00 &&
               mask == 0xffff,
           "cvt.rn.f16.f32 3f800000 => 3c00");
    /* An array, compared element by element with the per-call interface. */
    uint64_t in[6] = {0x3f800000, 0x477fe000, 0x477ff000, 0x33800000, 0x7f800001, 0xff800000}, out[6];
    expect(ptx_cvt_eval_batch(h, 6, in, out, err, sizeof err) == PTX_CVT_OK, "batch");
    for (int i = 0; i < 6; i++) {
        uint64_t b, m;
        char text[PTX_CVT_TEXT_LEN];
        int rc = ptx_cvt_eval("cvt.rn.f16.f32", &in[i], widths, 1, 16, NULL, &b, &m, text, sizeof text, err, sizeof err);
        expect(rc >= 0, "per-call eval");
        expect(ptx_cvt_accepts_prepared(h, &in[i], out[i], err, sizeof err) == PTX_CVT_ACCEPT,
               "each batch result is accepted");
        if (rc == PTX_CVT_OK) {
            expect((out[i] & m) == b, "batch agrees with ptx_cvt_eval");
        }
        printf("cvt.rn.f16.f32 %08llx => %04llx (ptx_cvt_eval: %s)\n", (unsigned long long)in[i],
               (unsigned long long)out[i], text);
    }
    /* The single-value call for hot loops: status and bits, no mask or
       message. Each value is the batch's; the NaN source is the sm90
       canonical NaN, one value (PTX_CVT_OK). */
    for (int i = 0; i < 6; i++) {
        uint64_t r = 0;
        int rc = ptx_cvt_eval1(h, in[i], &r);
        expect(rc == PTX_CVT_OK && r == out[i], "ptx_cvt_eval1 agrees with the batch");
    }
    uint64_t r1 = 1;
    expect(ptx_cvt_eval1(h, 0x100000000ull, &r1) == PTX_CVT_EILLEGAL && r1 == 0,
           "ptx_cvt_eval1 refuses a too-wide operand");
    /* A set: cvt.f64.bf16 of a NaN is any f64 NaN under sm90; eval1 gives
       PTX_CVT_NOT_BITS and the canonical NaN, a member of the set. */
    ptx_cvt_prepared *nan = NULL;
    uint32_t w16[1] = {16};
    uint64_t bf16_nan = 0x7fc1;
    if (ptx_cvt_prepare("cvt.f64.bf16", w16, 1, 64, NULL, NULL, NULL, &nan, err, sizeof err) == PTX_CVT_OK) {
        expect(ptx_cvt_eval1(nan, bf16_nan, &r1) == PTX_CVT_NOT_BITS && r1 == 0x7fffffffffffffffull,
               "ptx_cvt_eval1: a set gives PTX_CVT_NOT_BITS and the canonical NaN");
        expect(ptx_cvt_accepts_prepared(nan, &bf16_nan, r1, err, sizeof err) == PTX_CVT_ACCEPT,
               "that NaN is accepted");
        printf("cvt.f64.bf16 %04llx => %016llx (ptx_cvt_eval1: PTX_CVT_NOT_BITS, one member of any NaN)\n",
               (unsigned long long)bf16_nan, (unsigned long long)r1);
        ptx_cvt_release(nan);
    } else {
        printf("FAIL: prepare cvt.f64.bf16: %s\n", err);
        failures++;
    }
    /* An operand that does not fit its register names its element. */
    uint64_t bad[2] = {0x3f800000, 0x100000000ull};
    expect(ptx_cvt_eval_batch(h, 2, bad, out, err, sizeof err) == PTX_CVT_EILLEGAL && strstr(err, "element 1"),
           "a too-wide operand is refused");
    ptx_cvt_release(h);
    printf("ptx-cvt C API %s prepared: %s\n", ptx_cvt_version(), failures ? "FAILED" : "all checks passed");
    return failures != 0;
}
