/*
 * ptx_cvt_impl.h: the function a cvt implementation under test exports so
 * that the ptx-cvt tools can load it as a shared library and compare it with
 * the oracle (`ptx-cvt fuzz --target-lib libmine.so`; the Rust side is
 * harness/src/shared_lib.rs).
 *
 * This header is for the implementer: define the function below (its name
 * is up to you; `cvt_impl` is what the tools look for unless told another
 * symbol), with C linkage and default visibility, in a shared library:
 *   cc -shared -fPIC -O2 -Icapi/include mine.c -o libmine.so
 * A worked example is capi/examples/toy_impl.c.
 *
 * Arguments (the same conventions as ptx_cvt_eval in ptx_cvt.h):
 *   instruction     the canonical PTX spelling, NUL-terminated, e.g.
 *                   "cvt.rn.f16.f32" or "cvt.rzi.s32.f64" (as ptx-cvt prints
 *                   it: "cvt", then the modifiers, then destination and source
 *                   types).
 *   operands        n_operands source registers' bits, in PTX operand order
 *                   (one for scalar forms; a, b[, random bits] for packed ones);
 *                   bits above the register's width are zero.
 *   operand_widths  each register's width in bits: 8, 16, 32 or 64. A register
 *                   may be wider than its type (e.g. an s8 source in a 32-bit
 *                   register: convert its low 8 bits).
 *   n_operands      how many of each.
 *   dst_width       the destination register's width in bits (8, 16, 32, 64),
 *                   at least the destination type's width.
 *   result          where to store the destination register's bits (only the
 *                   low dst_width bits; the rest must be zero).
 *
 * Return 0 when *result holds the answer. Return non-zero when the
 * implementation does not handle the case (unsupported instruction or
 * operands): the tools report it as rejected, not as a wrong answer.
 *
 * The function may be called many times and from several threads at once
 * (for different cases); it must not keep pointers to its arguments after
 * it returns. A crash in it ends the calling process.
 */
#ifndef PTX_CVT_IMPL_H
#define PTX_CVT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The type of the function, whatever its name. */
typedef int (*ptx_cvt_impl_fn)(const char *instruction,
                               const uint64_t *operands,
                               const uint32_t *operand_widths,
                               size_t n_operands,
                               uint32_t dst_width,
                               uint64_t *result);

/* The default symbol the tools look up. */
int cvt_impl(const char *instruction,
             const uint64_t *operands,
             const uint32_t *operand_widths,
             size_t n_operands,
             uint32_t dst_width,
             uint64_t *result);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PTX_CVT_IMPL_H */
