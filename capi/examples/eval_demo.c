/*
 * eval_demo.c: use libptx_cvt_capi from C.
 *
 * Build and run (from the workspace root):
 *   cargo build -p ptx-cvt-capi
 *   cc -std=c99 -Wall -Icapi/include capi/examples/eval_demo.c \
 *      -Ltarget/debug -lptx_cvt_capi -Wl,-rpath,$PWD/target/debug -o eval_demo
 *   ./eval_demo
 *
 * Prints each check and exits non-zero on any wrong answer (capi/tests/c_abi.rs
 * builds and runs it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ptx_cvt.h"

static int failures = 0;

/* Evaluate one-operand `instr` and check the return code, bits and text. */
static void check_eval(const char *instr, uint64_t operand, uint32_t src_width, uint32_t dst_width,
                       int want_rc, uint64_t want_bits, const char *want_text) {
    uint64_t ops[1] = {operand};
    uint32_t widths[1] = {src_width};
    uint64_t bits = 0, mask = 0;
    char text[PTX_CVT_TEXT_LEN];
    char err[PTX_CVT_ERR_LEN];
    int rc = ptx_cvt_eval(instr, ops, widths, 1, dst_width, "sm90", &bits, &mask, text, sizeof text,
                          err, sizeof err);
    int ok = rc == want_rc && strcmp(text, want_text) == 0;
    if (want_rc == PTX_CVT_OK) {
        uint64_t all = dst_width == 64 ? ~(uint64_t)0 : (((uint64_t)1 << dst_width) - 1);
        ok = ok && bits == want_bits && mask == all;
    }
    printf("%s %s %0*" PRIx64 " -> rc %d, text \"%s\", bits %" PRIx64 "/%" PRIx64 "%s%s\n",
           ok ? "ok  " : "FAIL", instr, (int)(src_width / 4), operand, rc, text, bits, mask,
           rc < 0 ? ", error: " : "", rc < 0 ? err : "");
    if (!ok) {
        printf("      wanted rc %d, text \"%s\"\n", want_rc, want_text);
        failures++;
    }
}

int main(void) {
    const char *version = ptx_cvt_version();
    printf("ptx-cvt C API %s\n", version);
    if (version == NULL || version[0] == '\0') {
        printf("FAIL: empty version\n");
        failures++;
    }

    /* 1.0f -> f16 1.0 = 0x3c00 (exact, IEEE 754). vectors/known-answers/sm90.cases:
       `cvt.rn.relu.f16.f32 3f800000 => 3c00`, and `cvt.rn.f16.f32 3f801000 => 3c00`
       (1 + 2^-11 rounds down to 1.0). */
    check_eval("cvt.rn.f16.f32", 0x3f800000, 32, 16, PTX_CVT_OK, 0x3c00, "3c00");
    /* NaN -> s32 from an f64 source gives 1<<31 ([HW], docs/semantics.md §5.3).
       vectors/known-answers/sm90.cases: `cvt.rzi.s32.f64 7ff8000000000000 => 80000000`. */
    check_eval("cvt.rzi.s32.f64", 0x7ff8000000000000ull, 64, 32, PTX_CVT_OK, 0x80000000, "80000000");
    /* With 32-bit registers the s8 source is the low byte and the result is sign-extended
       into the whole destination register ([HW] docs/semantics.md §4).
       vectors/known-answers/sm90.cases: `cvt.s16.s8 139231c2 => ffffffc2`. */
    check_eval("cvt.s16.s8", 0x139231c2, 32, 32, PTX_CVT_OK, 0xffffffc2, "ffffffc2");
    /* A bf16 NaN widened to f64: any NaN is accepted, which bits/mask cannot express,
       so the call returns PTX_CVT_NOT_BITS (1) with the text "nan".
       vectors/known-answers/sm90.cases: `cvt.f64.bf16 ffc1 => nan`. */
    check_eval("cvt.f64.bf16", 0x7fc1, 16, 64, PTX_CVT_NOT_BITS, 0, "nan");

    /* ptx_cvt_accepts: any f64 NaN is accepted for the case above, a number is not. */
    {
        uint64_t ops[1] = {0x7fc1};
        uint32_t widths[1] = {16};
        char err[PTX_CVT_ERR_LEN];
        int a = ptx_cvt_accepts("cvt.f64.bf16", ops, widths, 1, 64, NULL, 0x7ff8000000000001ull, err, sizeof err);
        int r = ptx_cvt_accepts("cvt.f64.bf16", ops, widths, 1, 64, NULL, 0x3ff0000000000000ull, err, sizeof err);
        int ok = a == PTX_CVT_ACCEPT && r == PTX_CVT_REJECT;
        printf("%s ptx_cvt_accepts cvt.f64.bf16 7fc1: 7ff8000000000001 -> %d, 3ff0000000000000 -> %d\n",
               ok ? "ok  " : "FAIL", a, r);
        failures += !ok;
    }

    /* An illegal instruction: f32 -> f16 can lose precision, so PTX requires a floating-point
       rounding modifier (.rn, .rz, .rm, .rp); .rni is an integer rounding (PTX ISA, cvt;
       legality rule rounding-required-frnd in oracle/src/instr/legality.rs). Illegal
       instructions give PTX_CVT_EILLEGAL (-3) with the message in err; outputs are cleared. */
    {
        uint64_t ops[1] = {0x3f800000};
        uint32_t widths[1] = {32};
        uint64_t bits = 1, mask = 1;
        char text[PTX_CVT_TEXT_LEN];
        char err[PTX_CVT_ERR_LEN] = "";
        int rc = ptx_cvt_eval("cvt.rni.f16.f32", ops, widths, 1, 16, NULL, &bits, &mask, text, sizeof text,
                              err, sizeof err);
        int ok = rc == PTX_CVT_EILLEGAL && err[0] != '\0' && text[0] == '\0' && bits == 0 && mask == 0;
        printf("%s cvt.rni.f16.f32 -> rc %d, error: %s\n", ok ? "ok  " : "FAIL", rc, err);
        failures += !ok;
    }

    /* A spelling that is not a cvt at all: PTX_CVT_EPARSE (-2). */
    {
        uint64_t ops[1] = {0};
        uint32_t widths[1] = {32};
        uint64_t bits, mask;
        char text[PTX_CVT_TEXT_LEN];
        char err[PTX_CVT_ERR_LEN] = "";
        int rc = ptx_cvt_eval("mov.b32", ops, widths, 1, 32, NULL, &bits, &mask, text, sizeof text, err,
                              sizeof err);
        int ok = rc == PTX_CVT_EPARSE && err[0] != '\0';
        printf("%s mov.b32 -> rc %d, error: %s\n", ok ? "ok  " : "FAIL", rc, err);
        failures += !ok;
    }

    if (failures) {
        printf("%d check(s) failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
