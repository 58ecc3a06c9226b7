/*
 * crashing_impl.c: a shared library under test that crashes on some cases,
 * for tests/crash.rs. It wraps capi/examples/toy_impl.c (compiled in: build
 * with -Icapi/include -Icapi/examples) and exports
 *
 *   clean_impl     toy_impl.c's cvt_impl_buggy: right, wrong and declined
 *                  answers, never a crash;
 *   crashing_impl  the same, except on about one case in CRASH_EVERY
 *                  (environment, default 20000), chosen by a hash of the
 *                  case and CRASH_SEED: there it fails in one of the modes
 *                  of CRASH_MODES (comma-separated, default all):
 *                    exit      calls exit(3)        segv   writes through NULL
 *                    kill      raises SIGKILL       abort  fails an assert-like abort()
 *                    hang      loops forever        stack  recurses until the stack ends
 *                    print     prints garbage on stdout, then answers as usual
 *                  (print is no crash: isolation must keep the protocol clean);
 *   clean_impl_reason, crashing_impl_reason
 *                  the reason for the last decline (ptx_cvt_impl.h).
 * The hash makes a case crash every time it is asked, as a real assert does.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toy_impl.c"

static _Thread_local char reason[200];

static uint64_t mix(uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

int clean_impl(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths,
               size_t n_operands, uint32_t dst_width, uint64_t *result) {
    int rc = cvt_impl_buggy(instruction, operands, operand_widths, n_operands, dst_width, result);
    if (rc != 0) {
        snprintf(reason, sizeof reason, "the toy does not do %s", instruction);
    }
    return rc;
}

const char *clean_impl_reason(void) { return reason; }
const char *crashing_impl_reason(void) { return reason; }

static volatile int spin = 1;

__attribute__((noinline)) static int deep(int n) {
    volatile char pad[4096];
    pad[0] = (char)n;
    if (spin) { /* always: the stack ends first */
        return deep(n + 1) + pad[0];
    }
    return pad[0];
}

static int enabled(const char *mode) {
    const char *modes = getenv("CRASH_MODES");
    if (!modes || !*modes) {
        return 1;
    }
    size_t n = strlen(mode);
    for (const char *p = modes; p; p = strchr(p, ',')) {
        if (*p == ',') {
            p++;
        }
        if (strncmp(p, mode, n) == 0 && (p[n] == ',' || p[n] == 0)) {
            return 1;
        }
    }
    return 0;
}

int crashing_impl(const char *instruction, const uint64_t *operands, const uint32_t *operand_widths,
                  size_t n_operands, uint32_t dst_width, uint64_t *result) {
    static const char *modes[] = {"exit", "segv", "kill", "abort", "hang", "stack", "print"};
    const char *every_s = getenv("CRASH_EVERY"), *seed_s = getenv("CRASH_SEED");
    uint64_t every = every_s ? strtoull(every_s, NULL, 10) : 20000;
    uint64_t h = mix(seed_s ? strtoull(seed_s, NULL, 10) : 1);
    for (const char *p = instruction; *p; p++) {
        h = mix(h ^ (unsigned char)*p);
    }
    for (size_t i = 0; i < n_operands; i++) {
        h = mix(h ^ operands[i] ^ ((uint64_t)operand_widths[i] << 56));
    }
    h = mix(h ^ dst_width);
    if (every && h % every == 0) {
        const char *mode = modes[mix(h) % (sizeof modes / sizeof *modes)];
        if (enabled(mode)) {
            if (!strcmp(mode, "exit")) {
                exit(3);
            } else if (!strcmp(mode, "segv")) {
                *(volatile int *)0 = 1;
            } else if (!strcmp(mode, "kill")) {
                raise(SIGKILL);
            } else if (!strcmp(mode, "abort")) {
                abort();
            } else if (!strcmp(mode, "hang")) {
                while (spin) {
                }
            } else if (!strcmp(mode, "stack")) {
                return deep(0);
            } else {
                printf("crashing_impl: garbage on stdout %s\n", instruction);
                fflush(stdout);
            }
        }
    }
    return clean_impl(instruction, operands, operand_widths, n_operands, dst_width, result);
}
