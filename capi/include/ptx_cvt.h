/*
 * ptx_cvt.h: C interface to the ptx-cvt oracle, the bit-exact reference
 * semantics of the PTX `cvt` instruction.
 *
 * Library: libptx_cvt_capi.so (libptx_cvt_capi.dylib on macOS), built by
 *   cargo build --release -p ptx-cvt-capi
 * into target/release/. Link with -L<that dir> -lptx_cvt_capi (and an rpath,
 * or LD_LIBRARY_PATH, so the loader finds it at run time).
 *
 * Conventions shared by every function:
 * - Instructions are PTX spellings such as "cvt.rn.f16.f32" or
 *   "cvt.rzi.s32.f64" (modifiers in any order; the first type is the
 *   destination), exactly as `ptx-cvt eval` takes them.
 * - Each source operand is the content of one register: its bits in
 *   operands[i], the register's width in bits (8, 16, 32 or 64) in
 *   operand_widths[i]; bits above the width must be zero. A register wider
 *   than the source type is allowed where PTX allows it (e.g. cvt.s16.s8
 *   with 32-bit registers: the low 8 bits are converted). Packed forms take
 *   their operands in PTX order (e.g. a, b, then random bits for .rs).
 * - dst_width is the destination register's width in bits (8, 16, 32, 64).
 * - profile is "sm90" (what an sm_90 GPU emits; the default when NULL) or
 *   "isa" (every result the PTX ISA text permits).
 * - Errors are negative return codes with a human-readable message written
 *   to err: always NUL-terminated, truncated (at a UTF-8 character boundary)
 *   to fit err_len bytes. On success err is set to "". err must not be NULL
 *   and err_len must not be 0: then only PTX_CVT_EARG is returned.
 * - No function aborts or unwinds into C: internal panics are caught and
 *   returned as PTX_CVT_EINTERNAL. Every function is thread-safe (no global
 *   state) and allocates nothing the caller must free, except the handle of
 *   ptx_cvt_prepare (ptx_cvt_release frees it).
 */
#ifndef PTX_CVT_H
#define PTX_CVT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define PTX_CVT_OK 0         /* eval: success, the result is result_bits/result_mask */
#define PTX_CVT_NOT_BITS 1   /* eval: success, but the result is a set that bits/mask
                                cannot express (e.g. "nan": any NaN); see result_text */
#define PTX_CVT_ACCEPT 1     /* accepts: the bits are an acceptable result */
#define PTX_CVT_REJECT 0     /* accepts: they are not */
#define PTX_CVT_EARG (-1)    /* bad arguments: a NULL pointer, a zero length, an
                                unknown profile, result_text too small */
#define PTX_CVT_EPARSE (-2)  /* the instruction does not parse as a cvt */
#define PTX_CVT_EILLEGAL (-3) /* illegal instruction or register use, or bad
                                 operands (count, register widths, stray bits) */
#define PTX_CVT_EINTERNAL (-4) /* a bug in the oracle (caught panic); please report */

/* A result_text buffer of this many bytes holds any result. */
#define PTX_CVT_TEXT_LEN 512
/* An err buffer of this many bytes holds the messages without truncation in
   practice (longer user input is quoted clipped). */
#define PTX_CVT_ERR_LEN 512

/*
 * ptx_cvt_eval: evaluate `instruction` on the source operands, writing a
 * destination register of dst_width bits, under `profile`.
 *
 * Outputs (all required, non-NULL):
 *   result_text     the acceptance set in the case-line syntax of
 *                   vectors/README.md, NUL-terminated: "3c00" (exact bits,
 *                   zero-padded to dst_width), "3f80????" or
 *                   "3f800000/ffffe000" (only some bits determined), "nan"
 *                   (any NaN of the destination type), alternatives joined by
 *                   '|', packed lanes joined by '_'. result_text_len must
 *                   hold it with its NUL (PTX_CVT_TEXT_LEN always does);
 *                   otherwise PTX_CVT_EARG.
 *   result_bits,    when the result is one value: that value and a mask of
 *   result_mask     all ones of dst_width; when it is one value/mask pattern
 *                   (bits that the ISA leaves open have 0 in the mask): the
 *                   value (zero outside the mask) and the mask. A result r is
 *                   then acceptable iff (r & result_mask) == result_bits.
 *                   Set to 0 otherwise.
 *
 * Returns PTX_CVT_OK (0) when result_bits/result_mask express the result,
 * PTX_CVT_NOT_BITS (1) when they cannot (e.g. "nan", several alternatives;
 * result_text is still filled, and ptx_cvt_accepts decides membership), or
 * a negative error code with a message in err (outputs are then 0 / "").
 *
 * Example: "cvt.rn.f16.f32", {0x3f800000}, {32}, 1, 16 -> 0, bits 0x3c00,
 * mask 0xffff, text "3c00".
 */
int ptx_cvt_eval(const char *instruction,
                 const uint64_t *operands,
                 const uint32_t *operand_widths,
                 size_t n_operands,
                 uint32_t dst_width,
                 const char *profile,
                 uint64_t *result_bits,
                 uint64_t *result_mask,
                 char *result_text,
                 size_t result_text_len,
                 char *err,
                 size_t err_len);

/*
 * ptx_cvt_accepts: whether `bits`, read from a destination register of
 * dst_width bits, is an acceptable result of `instruction` on the operands
 * under `profile`. Arguments as for ptx_cvt_eval.
 *
 * Returns PTX_CVT_ACCEPT (1), PTX_CVT_REJECT (0; also when bits has bits set
 * above dst_width), or a negative error code with a message in err.
 */
int ptx_cvt_accepts(const char *instruction,
                    const uint64_t *operands,
                    const uint32_t *operand_widths,
                    size_t n_operands,
                    uint32_t dst_width,
                    const char *profile,
                    uint64_t bits,
                    char *err,
                    size_t err_len);

/*
 * Prepared conversions, for simulators that evaluate the same instruction
 * many times (the way they call SoftFloat): the instruction is parsed and
 * checked once, each evaluation only reads operands. A handle is immutable:
 * any number of threads may use one at once. Results are those of
 * ptx_cvt_eval and ptx_cvt_accepts (the fast engine, tested equal to the
 * exact one on every form, under "sm90"; the exact engine under "isa").
 *
 *   ptx_cvt_prepared *h;
 *   uint32_t widths[1] = {32};
 *   if (ptx_cvt_prepare("cvt.rn.f16.f32", widths, 1, 16, "sm_90", NULL, NULL,
 *                       &h, err, sizeof err) != PTX_CVT_OK) { puts(err); return; }
 *   uint64_t in[3] = {0x3f800000, 0x7f800001, 0x477fe000}, out[3];
 *   ptx_cvt_eval_batch(h, 3, in, out, err, sizeof err); // 3c00 7fff 7bff
 *   ptx_cvt_release(h);
 */
typedef struct Prepared ptx_cvt_prepared;

/*
 * ptx_cvt_prepare: check `instruction` with source registers of
 * operand_widths[0..n_operands] bits and a destination of dst_width bits,
 * legal on `target` (e.g. "sm_90"; NULL: any target the oracle models) at
 * PTX ISA `ptx_version` (e.g. "9.5"; NULL: the newest), under `profile`
 * (NULL: "sm90"). On success *handle is set (free it with
 * ptx_cvt_release) and PTX_CVT_OK returned; otherwise *handle is NULL and a
 * negative code comes with a message in err.
 */
int ptx_cvt_prepare(const char *instruction,
                    const uint32_t *operand_widths,
                    size_t n_operands,
                    uint32_t dst_width,
                    const char *target,
                    const char *ptx_version,
                    const char *profile,
                    ptx_cvt_prepared **handle,
                    char *err,
                    size_t err_len);

/*
 * ptx_cvt_eval_prepared: evaluate on operands[0..n_operands] (the register
 * contents, bits above each width zero). result_bits/result_mask and the
 * return code as for ptx_cvt_eval: PTX_CVT_OK with the value (and mask), or
 * PTX_CVT_NOT_BITS (a set such as any NaN: both 0; ask
 * ptx_cvt_accepts_prepared), or a negative error code.
 */
int ptx_cvt_eval_prepared(const ptx_cvt_prepared *handle,
                          const uint64_t *operands,
                          uint64_t *result_bits,
                          uint64_t *result_mask,
                          char *err,
                          size_t err_len);

/*
 * ptx_cvt_eval1: the single-value call for hot loops (a simulator's
 * SoftFloat-style f32_to_f16): one operand in, the destination register's
 * bits out, no mask and no message. For handles of single-operand forms
 * (operand_widths[0] bits; a form that takes more operands, such as .rs or
 * packed pairs, answers PTX_CVT_EILLEGAL: use ptx_cvt_eval_prepared).
 *
 * Returns, with *result set:
 *   PTX_CVT_OK (0)        the result is exactly one value: *result. Then
 *                         ptx_cvt_eval_prepared gives PTX_CVT_OK, the same
 *                         bits and a mask of all ones.
 *   PTX_CVT_NOT_BITS (1)  the result is a set of several values (any NaN;
 *                         bits the profile leaves open, as tf32's low bits
 *                         under "isa"; packed lanes holding any NaN):
 *                         *result is one member of it, the one
 *                         ptx_cvt_eval_batch writes (open bits 0; the
 *                         format's canonical NaN for any NaN: all fraction
 *                         bits set, sign clear). A simulator may write it;
 *                         a checker asks ptx_cvt_eval_prepared for the
 *                         pattern or ptx_cvt_accepts_prepared for membership.
 *   PTX_CVT_EARG          handle or result is NULL (*result 0 if not NULL).
 *   PTX_CVT_EILLEGAL      the operand has bits above its register's width,
 *                         or the form takes more than one operand
 *                         (*result 0; ptx_cvt_eval_prepared on the same
 *                         operand gives the message).
 *   PTX_CVT_EINTERNAL     a caught panic (a bug; please report).
 * So `rc >= 0` means *result is an acceptable value, and `rc == PTX_CVT_OK`
 * that it is the only one. Thread-safe as every call on a handle.
 *
 *   uint64_t r;
 *   for (size_t i = 0; i < n; i++) {
 *       if (ptx_cvt_eval1(h, src[i], &r) < 0) { ... }  // r: 3c00 for 3f800000
 *       dst[i] = (uint16_t)r;
 *   }
 */
int ptx_cvt_eval1(const ptx_cvt_prepared *handle, uint64_t operand, uint64_t *result);

/*
 * ptx_cvt_accepts_prepared: PTX_CVT_ACCEPT (1) when `bits` is an acceptable
 * result on the operands, PTX_CVT_REJECT (0) when not, or an error code.
 */
int ptx_cvt_accepts_prepared(const ptx_cvt_prepared *handle,
                             const uint64_t *operands,
                             uint64_t bits,
                             char *err,
                             size_t err_len);

/*
 * ptx_cvt_eval_batch: evaluate n elements. operands holds n rows of
 * n_operands values (row-major: element i's operands at
 * operands[i * n_operands ...]); results[i] receives element i's result,
 * or, where that is a set, one member of it (the format's canonical NaN for
 * "any NaN": all fraction bits set, sign clear), as the Rust batch API
 * gives. Single-operand forms at the types' own register widths run the
 * vectorised kernels. Returns PTX_CVT_OK or a negative code (an operand
 * that does not fit its register names its element in err).
 */
int ptx_cvt_eval_batch(const ptx_cvt_prepared *handle,
                       size_t n,
                       const uint64_t *operands,
                       uint64_t *results,
                       char *err,
                       size_t err_len);

/*
 * ptx_cvt_eval_slice: ptx_cvt_eval_batch for single-operand forms on arrays
 * of the registers' own widths, as a simulator holds them: operands is n
 * elements of operand_widths[0] bits (uint8_t, uint16_t, uint32_t or
 * uint64_t), results n of dst_width bits, each aligned for its type (an f32
 * -> f16 conversion reads uint32_t and writes uint16_t). Bits above a
 * source type narrower than its register are ignored, as the conversion
 * reads the register. The fastest way in for arrays of natural widths.
 */
int ptx_cvt_eval_slice(const ptx_cvt_prepared *handle,
                       size_t n,
                       const void *operands,
                       void *results,
                       char *err,
                       size_t err_len);

/* ptx_cvt_release: free a handle (NULL is ignored). */
void ptx_cvt_release(ptx_cvt_prepared *handle);

/*
 * ptx_cvt_version: the library's version, e.g. "0.1.0". A static
 * NUL-terminated string: do not free it.
 */
const char *ptx_cvt_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PTX_CVT_H */
