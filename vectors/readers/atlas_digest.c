/* Reference implementation of the ptx-cvt sweep/atlas digest (vectors/README.md,
 * "Digest atlas"). C99, libc only; uses read_cases.c (next to it) for parsing.
 *
 *   ptxcvt_digest_term(x, r)          splitmix64(x * K ^ r) mod 2^64
 *   ptxcvt_input_number(&case)        x: source registers concatenated, first operand high
 *   ptxcvt_representative(&case, open_nan, mask)
 *                                     r: the result, a set's representative
 *
 *   cc -std=c99 -O2 -o atlas_digest atlas_digest.c
 *   ./atlas_digest [--open-nan] [--mask HEX] FILE...
 * reads case lines of one instruction with at most 32 source bits and prints
 * `# instruction: V`, one `BLOCK DIGEST` line per block of 2^24 inputs that
 * has inputs, and `# digest: D` (their sum). Exit 1 with "FILE:LINE: message".
 */
#define PTXCVT_NO_MAIN
#include "read_cases.c"

#define PTXCVT_K 0xd6e8feb86659fd93ULL
#define PTXCVT_BLOCK_BITS 24

static uint64_t splitmix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t ptxcvt_digest_term(uint64_t x, uint64_t r) { return splitmix64((x * PTXCVT_K) ^ r); }

uint64_t ptxcvt_input_number(const struct ptxcvt_case *c) {
    uint64_t x = 0;
    for (int i = 0; i < c->noperands; i++) x = (c->operand_width[i] >= 64 ? 0 : x << c->operand_width[i]) | c->operand[i];
    return x;
}

/* Sign clear, every exponent and fraction bit set, at the format's place in its container. */
static uint64_t canonical_nan(int f) { return low_mask(FORMATS[f].e + FORMATS[f].m) << FORMATS[f].shift; }

/* The result bits the digest takes; -1 in *ok when the line has no single result. */
uint64_t ptxcvt_representative(const struct ptxcvt_case *c, int open_nan, uint64_t mask, int *ok) {
    *ok = c->nalts == 1;
    if (!*ok) return 0;
    const struct ptxcvt_alt *a = &c->alt[0];
    unsigned lb = a->lane_bits ? a->lane_bits : a->width, lanes = a->width / lb;
    uint64_t r = a->kind == PTXCVT_NAN ? canonical_nan(c->fmt) : a->value & a->mask;
    for (unsigned l = 0; a->lane_bits && l < lanes; l++)
        if (a->nan_lanes >> l & 1) r |= (canonical_nan(c->fmt) & low_mask(lb)) << (l * lb);
    r &= mask;
    if (open_nan && FORMATS[c->fmt].e)
        for (unsigned l = 0; l < lanes; l++) {
            uint64_t lane = (r >> (l * lb)) & low_mask(lb);
            if (ptxcvt_is_nan(c->fmt, lane >> FORMATS[c->fmt].shift))
                r = (r & ~(low_mask(lb) << (l * lb))) | (canonical_nan(c->fmt) & low_mask(lb)) << (l * lb);
        }
    return r;
}

int main(int argc, char **argv) {
    static char line[PTXCVT_MAX_LINE + 3];
    static uint64_t block[256];
    static char seen[256], instr[64];
    char err[256];
    struct ptxcvt_case c;
    int open_nan = 0, nfiles = 0;
    uint64_t mask = ~(uint64_t)0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--open-nan")) open_nan = 1;
        else if (!strcmp(argv[i], "--mask") && i + 1 < argc) mask = strtoull(argv[++i], NULL, 16);
        else argv[++nfiles] = argv[i];
    }
    if (!nfiles) { fprintf(stderr, "usage: %s [--open-nan] [--mask HEX] FILE...\n", argv[0]); return 2; }
    for (int i = 1; i <= nfiles; i++) {
        FILE *f = fopen(argv[i], "r");
        long lineno = 0;
        if (!f) { perror(argv[i]); return 2; }
        while (fgets(line, sizeof line, f)) {
            int ok = 1, r;
            lineno++;
            if (!strchr(line, '\n') && !feof(f)) { snprintf(err, sizeof err, "line is longer than %d bytes", PTXCVT_MAX_LINE); r = -1; }
            else r = ptxcvt_parse_line(line, &c, err, sizeof err);
            if (r == 1 && !instr[0]) strcpy(instr, c.instr);
            if (r == 1 && strcmp(instr, c.instr)) { snprintf(err, sizeof err, "`%s`: every line must be `%s`", c.instr, instr); r = -1; }
            uint64_t x = r == 1 ? ptxcvt_input_number(&c) : 0, v = 0;
            if (r == 1 && x >> 32) { snprintf(err, sizeof err, "more than 32 source bits"); r = -1; }
            if (r == 1) v = ptxcvt_representative(&c, open_nan, mask, &ok);
            if (r == 1 && !ok) { snprintf(err, sizeof err, "the digest needs one result per line, not none or alternatives"); r = -1; }
            if (r < 0) { fprintf(stderr, "%s:%ld: %s\n", argv[i], lineno, err); fclose(f); return 1; }
            if (r == 1) { block[x >> PTXCVT_BLOCK_BITS] += ptxcvt_digest_term(x, v); seen[x >> PTXCVT_BLOCK_BITS] = 1; }
        }
        fclose(f);
    }
    uint64_t total = 0;
    printf("# instruction: %s\n", instr);
    for (int b = 0; b < 256; b++)
        if (seen[b]) { printf("%d %016llx\n", b, (unsigned long long)block[b]); total += block[b]; }
    printf("# digest: %016llx\n", (unsigned long long)total);
    return 0;
}
