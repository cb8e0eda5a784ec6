/* Seeded random numbers: xoshiro256** seeded through splitmix64; a skip
 * ahead by the state update's matrix powers (trv.h). */
#include "trv.h"

#include <pthread.h>
#include <stdlib.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void trv_rng_seed(trv_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

/* The state's update, linear over GF(2) (the output is taken apart). */
static void step(uint64_t *s)
{
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
}

uint64_t trv_rng_next(trv_rng *r)
{
    uint64_t result = rotl(r->s[1] * 5, 7) * 9;
    step(r->s);
    return result;
}

/* The update's matrix M to the powers 2^i, i = 0..63, each as its 256
 * columns (column j: the image of state bit j), made once. */
typedef uint64_t trv_mat[256][4];
static trv_mat *POW2;
static pthread_once_t POW2_ONCE = PTHREAD_ONCE_INIT;

/* y = m x (y may not be x). */
static void mat_vec(const trv_mat m, const uint64_t *x, uint64_t *y)
{
    y[0] = y[1] = y[2] = y[3] = 0;
    for (int j = 0; j < 256; j++)
        if (x[j >> 6] >> (j & 63) & 1)
            for (int q = 0; q < 4; q++)
                y[q] ^= m[j][q];
}

static void make_pow2(void)
{
    trv_mat *p = malloc(64 * sizeof *p);
    if (!p)
        return; /* trv_rng_skip steps instead */
    for (int j = 0; j < 256; j++) {
        uint64_t e[4] = {0};
        e[j >> 6] = (uint64_t)1 << (j & 63);
        step(e);
        for (int q = 0; q < 4; q++)
            p[0][j][q] = e[q];
    }
    for (int i = 1; i < 64; i++) /* column j of A^2: A (A e_j) */
        for (int j = 0; j < 256; j++)
            mat_vec(p[i - 1], p[i - 1][j], p[i][j]);
    POW2 = p;
}

void trv_rng_skip(trv_rng *r, uint64_t n)
{
    pthread_once(&POW2_ONCE, make_pow2);
    for (int i = 0; i < 64 && POW2; i++)
        if (n >> i & 1) {
            uint64_t y[4];
            mat_vec(POW2[i], r->s, y);
            for (int q = 0; q < 4; q++)
                r->s[q] = y[q];
        }
    for (; !POW2 && n > 0; n--)
        step(r->s);
}

double trv_rng_uniform(trv_rng *r) { return (double)(trv_rng_next(r) >> 11) * 0x1.0p-53; }

uint64_t trv_rng_below(trv_rng *r, uint64_t n)
{
    /* reject the top partial block so every value is equally likely */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = trv_rng_next(r);
    while (x >= limit);
    return x % n;
}
