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
 * Optionally, say why a case was declined: export, next to the function,
 *   const char *cvt_impl_reason(void);
 * (for a function named NAME: NAME_reason), returning the message of the
 * last decline on the calling thread, or NULL; the text must stay valid
 * until the next call on that thread (a thread-local buffer will do). The
 * tools call it right after a non-zero return and report declines grouped by
 * that message; without it the reason is "cvt_impl returned N". The function
 * itself is unchanged either way.
 *
 * The function may be called many times and from several threads at once
 * (for different cases); it must not keep pointers to its arguments after
 * it returns.
 *
 * A crash: loaded into ptx-cvt (the default), a crash in the function (a
 * signal such as SIGSEGV or SIGABRT from a failed assert, a stack overflow,
 * or a call of exit()) ends the calling process; ptx-cvt first writes the
 * case in flight to stderr ("crashed (SIGABRT) in cvt_impl on: ...") and
 * the exit status tells the signal; an endless loop hangs it. With
 * --isolate the library runs in worker processes instead: a crash, exit()
 * or a case taking longer than --timeout costs only that case, reported as
 * crashed, and a new worker goes on with the rest. Under --isolate, output
 * the library writes to stdout goes to stderr.
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

/* The type of the optional reason function. */
typedef const char *(*ptx_cvt_impl_reason_fn)(void);

/* The default symbol the tools look up. */
int cvt_impl(const char *instruction,
             const uint64_t *operands,
             const uint32_t *operand_widths,
             size_t n_operands,
             uint32_t dst_width,
             uint64_t *result);

/* Optional: why the last call on this thread returned non-zero (or NULL). */
const char *cvt_impl_reason(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PTX_CVT_IMPL_H */
