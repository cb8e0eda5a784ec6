/* Ride: a seeded ISO 8608 profile under each wheel path (harmonic
 * superposition) and the quarter car driven over it (docs/method.md §5.10;
 * sim.h, "ride"). */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NH SIM_RIDE_HARMONICS

struct sim_ride {
    tm_quarter_car q;
    double dt;
    int mmax;                       /* sub-steps precomputed: 1..mmax */
    double (*phi)[4][4], (*ga)[4], (*gb)[4]; /* per sub-step count m (index m - 1) */
    double n[NH];                   /* harmonic frequencies (cycles/m) */
    double *amp[256];               /* per land-use code: amplitudes (NULL: smooth) */
    double zero[NH];
    /* the corners: 0 front left, 1 front right, 2 rear left, 3 rear right */
    double pre[4][NH], pim[4][NH];  /* e^(i theta) of each harmonic under the wheel */
    double from[4][NH];             /* blending: the amplitudes left behind */
    int code[4];
    double blend_m[4];              /* distance since the class changed (>= SIM_RIDE_BLEND_M: done) */
    double x[4][4];                 /* zs, vs, zu, vu */
    double zr[4];
    int started;
    /* statistics */
    double a2_sum, p_sum, a_max, win_a2;
    long samples;
};

void sim_ride_band(double n[], double dn[])
{
    double r = pow(SIM_RIDE_N_HI / SIM_RIDE_N_LO, 1.0 / NH);
    for (int i = 0; i < NH; i++) {
        double lo = SIM_RIDE_N_LO * pow(r, i), hi = SIM_RIDE_N_LO * pow(r, i + 1);
        n[i] = sqrt(lo * hi);
        if (dn)
            dn[i] = hi - lo;
    }
}

void sim_ride_amplitudes(double gd0_m3, double w, double amp[])
{
    double n[NH], dn[NH];
    sim_ride_band(n, dn);
    for (int i = 0; i < NH; i++)
        amp[i] = gd0_m3 > 0 ? sqrt(2.0 * gd0_m3 * pow(n[i] / TM_ISO8608_N0, -w) * dn[i]) : 0;
}

void sim_ride_phases(uint64_t seed, double phase[])
{
    trv_rng g;
    trv_rng_seed(&g, seed);
    for (int i = 0; i < NH; i++)
        phase[i] = 2.0 * M_PI * trv_rng_uniform(&g);
}

double sim_ride_height(const double amp[], const double phase[], double s)
{
    double n[NH], z = 0;
    sim_ride_band(n, NULL);
    for (int i = 0; i < NH; i++)
        z += amp[i] * cos(2.0 * M_PI * n[i] * s + phase[i]);
    return z;
}

/* exp(a) of a 6 x 6 matrix: scaling and squaring with a Taylor series of
 * 20 terms (the scaled norm is <= 0.5: truncation below 1e-25). */
static void expm6(double a[6][6], double e[6][6])
{
    double norm = 0;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            norm = fmax(norm, fabs(a[i][j]));
    int sq = 0;
    while (6 * norm > 0.5)
        norm /= 2, sq++;
    double s = ldexp(1.0, -sq), term[6][6], next[6][6];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            e[i][j] = term[i][j] = i == j;
    for (int k = 1; k <= 20; k++) {
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                double t = 0;
                for (int l = 0; l < 6; l++)
                    t += term[i][l] * a[l][j] * s;
                next[i][j] = t / k;
            }
        memcpy(term, next, sizeof term);
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++)
                e[i][j] += term[i][j];
    }
    for (; sq > 0; sq--) {
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                double t = 0;
                for (int l = 0; l < 6; l++)
                    t += e[i][l] * e[l][j];
                next[i][j] = t;
            }
        memcpy(e, next, sizeof next);
    }
}

/* exp of the augmented system [x, u, u1 - u0] (the last constant over the
 * step, u' = (u1 - u0) / h). */
void sim_quarter_car_discretise(const tm_quarter_car *q, double h, double phi[4][4], double ga[4], double gb[4])
{
    double ms = q->sprung_kg, mu = q->unsprung_kg, k = q->spring_N_per_m, c = q->damper_Ns_per_m;
    double kt = q->tyre_N_per_m;
    double a[6][6] = {{0, 1, 0, 0, 0, 0},
                      {-k / ms, -c / ms, k / ms, c / ms, 0, 0},
                      {0, 0, 0, 1, 0, 0},
                      {k / mu, c / mu, -(k + kt) / mu, -c / mu, kt / mu, 0},
                      {0, 0, 0, 0, 0, 1},
                      {0, 0, 0, 0, 0, 0}};
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++)
            a[i][j] *= h;
    a[4][5] = 1; /* the third state is the change u1 - u0 over the step: u' = (u1 - u0) / h */
    double e[6][6];
    expm6(a, e);
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++)
            phi[i][j] = e[i][j];
        ga[i] = e[i][4];
        gb[i] = e[i][5];
    }
}

trv_status sim_ride_new(trv_ctx *ctx, const tm_quarter_car *q, double dt, double v_max_ms, double wheelbase_m,
                        uint64_t seed, sim_ride **out)
{
    *out = NULL;
    if (!(q->sprung_kg > 0 && q->unsprung_kg > 0 && q->tyre_N_per_m > 0 && dt > 0))
        return trv_error(ctx, TRV_ERR_DATA, "the quarter car needs positive masses, tyre stiffness and step");
    sim_ride *r = calloc(1, sizeof *r);
    if (!r)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    r->q = *q, r->dt = dt;
    r->mmax = (int)ceil(1.5 * fmax(v_max_ms, 0) * dt / SIM_RIDE_SUBSTEP_M) + 1;
    r->phi = malloc(r->mmax * sizeof *r->phi);
    r->ga = malloc(r->mmax * sizeof *r->ga);
    r->gb = malloc(r->mmax * sizeof *r->gb);
    if (!r->phi || !r->ga || !r->gb) {
        sim_ride_free(r);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    for (int m = 1; m <= r->mmax; m++)
        sim_quarter_car_discretise(q, dt / m, r->phi[m - 1], r->ga[m - 1], r->gb[m - 1]);
    sim_ride_band(r->n, NULL);
    /* left and right wheel paths: their own phases; the rear wheels run
     * wheelbase_m behind the front ones on the same path */
    for (int p = 0; p < 2; p++) {
        double ph[NH];
        sim_ride_phases(seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(p + 1)), ph);
        for (int i = 0; i < NH; i++)
            for (int rear = 0; rear < 2; rear++) {
                double th = ph[i] - (rear ? 2.0 * M_PI * r->n[i] * wheelbase_m : 0);
                r->pre[p + 2 * rear][i] = cos(th);
                r->pim[p + 2 * rear][i] = sin(th);
            }
    }
    for (int c = 0; c < 4; c++)
        r->code[c] = -1, r->blend_m[c] = SIM_RIDE_BLEND_M;
    *out = r;
    return TRV_OK;
}

void sim_ride_free(sim_ride *r)
{
    if (!r)
        return;
    for (int c = 0; c < 256; c++)
        free(r->amp[c]);
    free(r->phi), free(r->ga), free(r->gb);
    free(r);
}

trv_status sim_ride_set_class(trv_ctx *ctx, sim_ride *r, int code, double gd0_m3, double w)
{
    if (code < 0 || code > 255)
        return trv_error(ctx, TRV_ERR_DATA, "land-use code %d outside 0..255", code);
    if (!(gd0_m3 > 0)) {
        free(r->amp[code]);
        r->amp[code] = NULL;
        return TRV_OK;
    }
    if (!r->amp[code] && !(r->amp[code] = malloc(NH * sizeof *r->amp[code])))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    sim_ride_amplitudes(gd0_m3, w, r->amp[code]);
    return TRV_OK;
}

static const double *amp_of(const sim_ride *r, int code)
{
    return code >= 0 && code < 256 && r->amp[code] ? r->amp[code] : r->zero;
}

/* The amplitudes under corner c now: the class's, or on a cosine ramp
 * from the ones left behind over SIM_RIDE_BLEND_M (no step in the road). */
static double height(const sim_ride *r, int c)
{
    const double *to = amp_of(r, r->code[c]), *re = r->pre[c];
    double z = 0;
    if (r->blend_m[c] >= SIM_RIDE_BLEND_M) {
        for (int i = 0; i < NH; i++)
            z += to[i] * re[i];
        return z;
    }
    double lam = 0.5 * (1 - cos(M_PI * r->blend_m[c] / SIM_RIDE_BLEND_M));
    const double *fr = r->from[c];
    for (int i = 0; i < NH; i++)
        z += (fr[i] + lam * (to[i] - fr[i])) * re[i];
    return z;
}

/* The class under corner c changes to code: blending starts from the
 * amplitudes in force. */
static void change_class(sim_ride *r, int c, int code)
{
    const double *to = amp_of(r, r->code[c]);
    if (r->blend_m[c] >= SIM_RIDE_BLEND_M) {
        memcpy(r->from[c], to, sizeof r->from[c]);
    } else {
        double lam = 0.5 * (1 - cos(M_PI * r->blend_m[c] / SIM_RIDE_BLEND_M));
        for (int i = 0; i < NH; i++)
            r->from[c][i] += lam * (to[i] - r->from[c][i]);
    }
    r->code[c] = code;
    r->blend_m[c] = 0;
}

static double accel(const sim_ride *r, const double x[4])
{
    const tm_quarter_car *q = &r->q;
    return (-q->spring_N_per_m * (x[0] - x[2]) - q->damper_Ns_per_m * (x[1] - x[3])) / q->sprung_kg;
}

void sim_ride_step(sim_ride *r, double ds, const int codes[4])
{
    ds = fmax(ds, 0);
    if (!r->started) {
        /* at rest on the road: no step input at the start */
        for (int c = 0; c < 4; c++) {
            r->code[c] = codes[c];
            r->zr[c] = height(r, c);
            r->x[c][0] = r->x[c][2] = r->zr[c];
        }
        r->started = 1;
    }
    for (int c = 0; c < 4; c++)
        if (codes[c] != r->code[c])
            change_class(r, c, codes[c]);
    int m = (int)ceil(ds / SIM_RIDE_SUBSTEP_M);
    m = m < 1 ? 1 : m > r->mmax ? r->mmax : m;
    double d = ds / m, rc[NH], rs[NH];
    for (int i = 0; i < NH; i++)
        rc[i] = cos(2.0 * M_PI * r->n[i] * d), rs[i] = sin(2.0 * M_PI * r->n[i] * d);
    const double(*phi)[4] = r->phi[m - 1], *ga = r->ga[m - 1], *gb = r->gb[m - 1];
    double a2 = 0, pw = 0;
    for (int k = 0; k < m; k++)
        for (int c = 0; c < 4; c++) {
            double *re = r->pre[c], *im = r->pim[c];
            for (int i = 0; i < NH; i++) {
                double t = re[i] * rc[i] - im[i] * rs[i];
                im[i] = re[i] * rs[i] + im[i] * rc[i];
                re[i] = t;
            }
            r->blend_m[c] += d;
            double u0 = r->zr[c], u1 = height(r, c), *x = r->x[c], y[4];
            for (int i = 0; i < 4; i++)
                y[i] = phi[i][0] * x[0] + phi[i][1] * x[1] + phi[i][2] * x[2] + phi[i][3] * x[3] + ga[i] * u0 +
                       gb[i] * (u1 - u0);
            memcpy(x, y, sizeof y);
            r->zr[c] = u1;
            double a = accel(r, x), dv = x[1] - x[3];
            a2 += a * a;
            pw += r->q.damper_Ns_per_m * dv * dv;
            r->a_max = fmax(r->a_max, fabs(a));
        }
    /* per corner-sample means; the window: exponential, time constant SIM_RIDE_WINDOW_S */
    double mean_a2 = a2 / (4.0 * m);
    r->a2_sum += mean_a2 * r->dt;
    r->p_sum += pw / (4.0 * m) * r->dt;
    r->samples++;
    double f = exp(-r->dt / SIM_RIDE_WINDOW_S);
    r->win_a2 = f * r->win_a2 + (1 - f) * mean_a2;
}

void sim_ride_get(const sim_ride *r, sim_ride_stats *out)
{
    double t = r->samples * r->dt;
    out->time_s = t;
    out->rms_ms2 = t > 0 ? sqrt(r->a2_sum / t) : 0;
    out->max_ms2 = r->a_max;
    out->power_corner_W = t > 0 ? r->p_sum / t : 0;
    out->window_rms_ms2 = sqrt(r->win_a2);
}
