/* Unconditional Gaussian fields on a lattice by circulant embedding (sim.h). */
#include "sim.h"
#include "core/tempfile.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* Negative eigenvalues double the torus while it stays within 2^25 nodes. */
enum { DOUBLE_TORUS_LOG2 = 25 };

double krg_normal(trv_rng *r)
{
    double u1 = 1.0 - trv_rng_uniform(r), u2 = trv_rng_uniform(r); /* u1 in (0, 1] */
    return sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
}

/* Doornik's ZIGNOR constants: the base strip's right edge and area. */
#define ZIG_R 3.442619855899
#define ZIG_V 9.91256303526217e-3

void krg_zig_init(krg_zig *z)
{
    double f = exp(-0.5 * ZIG_R * ZIG_R);
    z->x[0] = ZIG_V / f; /* the base strip as a box of the same area */
    z->x[1] = ZIG_R;
    z->x[128] = 0;
    for (int i = 2; i < 128; i++) {
        z->x[i] = sqrt(-2 * log(ZIG_V / z->x[i - 1] + f));
        f = exp(-0.5 * z->x[i] * z->x[i]);
    }
    for (int i = 0; i < 128; i++)
        z->r[i] = z->x[i + 1] / z->x[i];
}

/* The tail beyond ZIG_R (Marsaglia 1964), on the side of u's sign. */
static double zig_tail(trv_rng *r, int negative)
{
    double x, y;
    do {
        x = log(1.0 - trv_rng_uniform(r)) / ZIG_R;
        y = log(1.0 - trv_rng_uniform(r));
    } while (-2 * y < x * x);
    return negative ? x - ZIG_R : ZIG_R - x;
}

double krg_zig_normal(const krg_zig *z, trv_rng *r)
{
    for (;;) {
        uint64_t b = trv_rng_next(r);
        double u = 2 * ((double)(b >> 11) * 0x1.0p-53) - 1;
        int i = (int)(b & 0x7f);
        if (fabs(u) < z->r[i]) /* inside the layer's box */
            return u * z->x[i];
        if (i == 0)
            return zig_tail(r, u < 0);
        double x = u * z->x[i], f0 = exp(-0.5 * (z->x[i] * z->x[i] - x * x));
        double f1 = exp(-0.5 * (z->x[i + 1] * z->x[i + 1] - x * x));
        if (f1 + trv_rng_uniform(r) * (f0 - f1) < 1.0) /* under the density in the wedge */
            return x;
    }
}

enum { COLS = 4 }; /* columns transformed together in memory: one cache line of each row */

size_t krg_ce_mem(void) { return trv_env_bytes("TRV_SIM_MEM", KRG_CE_MEM); }

/* The bytes of the torus in memory: sq and work (24 a node), the column
 * buffer and the two plans (their twiddles and buffers). */
static double mem_need(int m1, int m2)
{
    return 24.0 * m1 * m2 + 16.0 * COLS * m2 + 32.0 * ((double)m1 + m2);
}

/* Out of core, the columns a chunk takes: what the budget leaves beside a
 * row (24 bytes a column) and the plans, at 16 m2 bytes a column; 1 to m1. */
static int chunk_cols(size_t mem, int m1, int m2)
{
    double fixed = 24.0 * m1 + 32.0 * ((double)m1 + m2), c = floor(((double)mem - fixed) / (16.0 * m2));
    return c < 1 ? 1 : c > m1 ? m1 : (int)c;
}

/* The gathers between row pieces (nc complex values) and a chunk's
 * columns (column j contiguous, m2 complex values). */
static void to_cols(const double *row, int nc, int r, int m2, double *buf)
{
    for (int j = 0; j < nc; j++) {
        buf[2 * ((size_t)j * m2 + r)] = row[2 * j];
        buf[2 * ((size_t)j * m2 + r) + 1] = row[2 * j + 1];
    }
}

static void from_cols(const double *buf, int nc, int r, int m2, double *row)
{
    for (int j = 0; j < nc; j++) {
        row[2 * j] = buf[2 * ((size_t)j * m2 + r)];
        row[2 * j + 1] = buf[2 * ((size_t)j * m2 + r) + 1];
    }
}

/* The 2-D transform of the m1 x m2 complex array (rows of m1): every row,
 * then the columns 0..ncols-1 (the others are not wanted). */
static void fft2(krg_ce *ce, double *z, int ncols)
{
    int m1 = ce->m1, m2 = ce->m2;
    for (int r = 0; r < m2; r++)
        krg_fft(&ce->f1, z + 2 * (size_t)r * m1);
    double *buf = ce->colbuf;
    for (int c0 = 0; c0 < ncols; c0 += COLS) {
        int nc = ncols - c0 < COLS ? ncols - c0 : COLS;
        for (int r = 0; r < m2; r++)
            to_cols(z + 2 * ((size_t)r * m1 + c0), nc, r, m2, buf);
        for (int j = 0; j < nc; j++)
            krg_fft(&ce->f2, buf + 2 * (size_t)j * m2);
        for (int r = 0; r < m2; r++)
            from_cols(buf, nc, r, m2, z + 2 * ((size_t)r * m1 + c0));
    }
}

/* n bytes of a temporary file at off, read or written (out); else an error
 * naming the cause. */
static trv_status io(trv_ctx *ctx, int fd, void *b, size_t n, off_t off, int out)
{
    errno = 0;
    if (trv_fd_move(fd, b, n, off, out))
        return TRV_OK;
    int e = errno;
    const char *dir = trv_temp_dir(NULL);
    if (e == ENOSPC || e == EDQUOT)
        return trv_error(ctx, TRV_ERR_IO,
                         "no space left in '%s' for the simulation torus's temporary files: set TMPDIR to a larger "
                         "disk",
                         dir);
    return trv_error(ctx, TRV_ERR_IO, "cannot %s the simulation torus's temporary file in '%s': %s",
                     out ? "write" : "read", dir, e ? strerror(e) : "it ends early");
}

/* The byte offset of column c of row r in a file of rows of w complex values. */
static off_t at(int r, int w, int c)
{
    return ((off_t)r * w + c) * 16;
}

/* Out of core, the eigenvalues' progress ("torus"): pass 0, 1 or 2 of
 * three (rows, columns, sums), done of n; reported every 64 steps, and at
 * the end (done = n of pass 2); TRV_ERR_CANCEL when the run is stopped. */
static trv_status torus_progress(trv_ctx *ctx, int pass, long done, long n)
{
    if (done % 64 && !(pass == 2 && done == n))
        return TRV_OK;
    return trv_progress(ctx, (pass + (double)done / n) / 3, "torus");
}

/* Out of core: columns 0..ncols-1 of the file's m2 rows of w complex
 * values transformed ce->cols at a time (read into ce->colbuf through
 * ce->work, a row's piece), rows 0..keep-1 written back in place; the
 * eigenvalues' column pass reports its progress (report). */
static trv_status disk_cols(trv_ctx *ctx, krg_ce *ce, int w, int ncols, int keep, int report)
{
    int m2 = ce->m2;
    double *buf = ce->colbuf, *piece = ce->work;
    trv_status st = TRV_OK;
    for (int c0 = 0; c0 < ncols && !st; c0 += ce->cols) {
        if (report && (st = trv_progress(ctx, (1 + (double)c0 / ncols) / 3, "torus")))
            break;
        int nc = ncols - c0 < ce->cols ? ncols - c0 : ce->cols;
        for (int r = 0; r < m2 && !st; r++)
            if (!(st = io(ctx, ce->fd_w, piece, 16 * (size_t)nc, at(r, w, c0), 0)))
                to_cols(piece, nc, r, m2, buf);
        for (int j = 0; j < nc && !st; j++)
            krg_fft(&ce->f2, buf + 2 * (size_t)j * m2);
        for (int r = 0; r < keep && !st; r++) {
            from_cols(buf, nc, r, m2, piece);
            st = io(ctx, ce->fd_w, piece, 16 * (size_t)nc, at(r, w, c0), 1);
        }
    }
    return st;
}

/* The distance beyond which the structured covariance stays below 1e-6
 * psill (for Sph: its range). */
static double reach(const krg_model *m0)
{
    if (m0->type == KRG_SPH)
        return m0->range;
    double h = m0->range;
    while (h < 1e6 * m0->range && m0->psill - krg_gamma(m0, h) > 1e-6 * m0->psill)
        h *= 1.25;
    return h;
}

/* Row r of the covariance on the torus (m1 complex values, z). */
static void cov_row(const krg_model *m0, int m1, int m2, double dx, double dy, int r, double *z)
{
    for (int c = 0; c < m1; c++) {
        double hx = (c <= m1 / 2 ? c : m1 - c) * dx, hy = (r <= m2 / 2 ? r : m2 - r) * dy;
        z[2 * c] = m0->psill - krg_gamma(m0, sqrt(hx * hx + hy * hy));
        z[2 * c + 1] = 0;
    }
}

/* The eigenvalues' least and largest, the sum of the negative ones' and
 * of all absolute values: summed row by row in row-major order. */
typedef struct eig_sum {
    double lo, hi, neg, all;
} eig_sum;

/* A row of eigenvalues (the real parts of z's m1 values) into e, and
 * sq = sqrt(max(lambda, 0) / (m1 m2)) of the row. */
static void eig_row(eig_sum *e, const double *z, int m1, int m2, double *sq)
{
    for (int c = 0; c < m1; c++) {
        double l = z[2 * c];
        e->lo = fmin(e->lo, l);
        e->hi = fmax(e->hi, l);
        e->all += fabs(l);
        if (l < 0)
            e->neg -= l;
        sq[c] = sqrt(fmax(l, 0) / ((double)m1 * m2));
    }
}

/* In memory: the covariance in ce->work, its 2-D transform, sq. */
static void eigen_mem(krg_ce *ce, const krg_model *m0, double dx, double dy, eig_sum *e)
{
    int m1 = ce->m1, m2 = ce->m2;
    for (int r = 0; r < m2; r++)
        cov_row(m0, m1, m2, dx, dy, r, ce->work + 2 * (size_t)r * m1);
    fft2(ce, ce->work, m1);
    for (int r = 0; r < m2; r++)
        eig_row(e, ce->work + 2 * (size_t)r * m1, m1, m2, ce->sq + (size_t)r * m1);
}

/* Out of core: each covariance row transformed into the work file, its
 * columns transformed in place, then in row order the sums and sq (the sq
 * file), with progress ("torus"). The draws then overwrite the work file's
 * first n1 m2 values. */
static trv_status eigen_disk(trv_ctx *ctx, krg_ce *ce, const krg_model *m0, double dx, double dy, eig_sum *e)
{
    int m1 = ce->m1, m2 = ce->m2;
    trv_status st = TRV_OK;
    for (int r = 0; r < m2 && !st; r++) {
        cov_row(m0, m1, m2, dx, dy, r, ce->work);
        krg_fft(&ce->f1, ce->work);
        if (!(st = io(ctx, ce->fd_w, ce->work, 16 * (size_t)m1, at(r, m1, 0), 1)))
            st = torus_progress(ctx, 0, r + 1, m2);
    }
    if (!st)
        st = disk_cols(ctx, ce, m1, m1, m2, 1);
    for (int r = 0; r < m2 && !st; r++)
        if (!(st = io(ctx, ce->fd_w, ce->work, 16 * (size_t)m1, at(r, m1, 0), 0))) {
            eig_row(e, ce->work, m1, m2, ce->sq);
            if (!(st = io(ctx, ce->fd_sq, ce->sq, 8 * (size_t)m1, (off_t)r * m1 * 8, 1)))
                st = torus_progress(ctx, 2, r + 1, m2);
        }
    return st;
}

/* The arrays, plans and files of the torus let go (n1, n2, m1, m2, the
 * ziggurat and the budget kept). */
static void torus_free(krg_ce *ce)
{
    free(ce->sq);
    free(ce->work);
    free(ce->colbuf);
    ce->sq = ce->work = ce->colbuf = NULL;
    krg_fftp_free(&ce->f1);
    krg_fftp_free(&ce->f2);
    if (ce->disk) {
        close(ce->fd_w);
        close(ce->fd_sq);
    }
    ce->disk = 0;
}

/* Out of core: the two temporary files, once $TMPDIR (else /tmp) is seen
 * to hold them (24 bytes a node). */
static trv_status torus_files(trv_ctx *ctx, krg_ce *ce)
{
    const char *dir = trv_temp_dir(NULL);
    double need = 24.0 * ce->m1 * ce->m2;
    struct statvfs fs;
    if (statvfs(dir, &fs))
        return trv_error(ctx, TRV_ERR_IO, "the simulation torus cannot use '%s' for its temporary files: %s", dir,
                         strerror(errno));
    double room = (double)fs.f_bavail * (double)fs.f_frsize;
    if (room < need)
        return trv_error(ctx, TRV_ERR_IO,
                         "no space left in '%s' for the simulation torus of %d x %d nodes: it needs %.3g GB of "
                         "temporary files there, %.3g GB are free: set TMPDIR to a larger disk",
                         dir, ce->m1, ce->m2, need / 1e9, room / 1e9);
    int a = trv_temp_fd(NULL, "trv-torus"), e = errno, b = a >= 0 ? trv_temp_fd(NULL, "trv-torus") : -1;
    if (b < 0) {
        e = a >= 0 ? errno : e;
        if (a >= 0)
            close(a);
        return trv_error(ctx, TRV_ERR_IO, "cannot make the simulation torus's temporary files in '%s': %s", dir,
                         strerror(e));
    }
    ce->fd_w = a, ce->fd_sq = b, ce->disk = 1;
    return TRV_OK;
}

/* The note of an out-of-core torus, before its passes. */
static void note_disk(const trv_ctx *ctx, const krg_ce *ce)
{
    if (ce->disk)
        trv_info(ctx, 1,
                 "note: the simulation torus of %d x %d nodes (%.3g GB) exceeds the memory budget (%.3g GB, "
                 "TRV_SIM_MEM): its FFTs run out of core, %d column%s at a time, through %.3g GB of temporary "
                 "files in '%s'",
                 ce->m1, ce->m2, mem_need(ce->m1, ce->m2) / 1e9, (double)ce->mem / 1e9, ce->cols,
                 ce->cols == 1 ? "" : "s",
                 24.0 * ce->m1 * ce->m2 / 1e9, trv_temp_dir(NULL));
}

/* The torus for m1 x m2 (sizes of krg_fft_size): in memory when it fits
 * the budget, else out of core; its eigenvalues, ce->lost, and *rel the
 * least eigenvalue relative to the largest. */
static trv_status torus(trv_ctx *ctx, krg_ce *ce, const krg_model *m0, double dx, double dy, double *rel)
{
    int m1 = ce->m1, m2 = ce->m2, disk = mem_need(m1, m2) > (double)ce->mem;
    size_t mm = (size_t)m1 * m2, held = disk ? (size_t)m1 : mm;
    torus_free(ce);
    ce->cols = disk ? chunk_cols(ce->mem, m1, m2) : COLS;
    ce->sq = malloc(held * sizeof *ce->sq);
    ce->work = malloc(2 * held * sizeof *ce->work);
    ce->colbuf = malloc(2 * (size_t)ce->cols * m2 * sizeof *ce->colbuf);
    if (!ce->sq || !ce->work || !ce->colbuf || krg_fftp_init(&ce->f1, m1) || krg_fftp_init(&ce->f2, m2)) {
        torus_free(ce);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory (a simulation torus of %zu nodes)", mm);
    }
    eig_sum e = {INFINITY, -INFINITY, 0, 0};
    trv_status st = disk ? torus_files(ctx, ce) : TRV_OK;
    if (!st && disk) {
        note_disk(ctx, ce);
        st = eigen_disk(ctx, ce, m0, dx, dy, &e);
    } else if (!st) {
        eigen_mem(ce, m0, dx, dy, &e);
    }
    if (st) {
        torus_free(ce);
        return st;
    }
    ce->lost = e.all > 0 ? e.neg / e.all : 0;
    *rel = e.hi > 0 ? e.lo / e.hi : -1;
    return TRV_OK;
}

trv_status krg_ce_init(trv_ctx *ctx, krg_ce *ce, const krg_model *m, int n1, int n2, double dx, double dy,
                       size_t mem)
{
    memset(ce, 0, sizeof *ce);
    if (m->type == KRG_POW || !(m->psill > 0))
        return trv_error(ctx, TRV_ERR_USAGE,
                         "conditional simulation needs a model with a sill (Sph, Exp, Gau or Mat), not %s",
                         krg_model_name(m->type));
    krg_model m0 = *m;
    m0.nugget = 0;
    krg_zig_init(&ce->zig);
    double R = reach(&m0);
    long want1 = (long)fmin(2.0 * n1, n1 + ceil(R / dx) + 1), want2 = (long)fmin(2.0 * n2, n2 + ceil(R / dy) + 1);
    ce->n1 = n1;
    ce->n2 = n2;
    ce->mem = mem;
    for (;;) {
        ce->m1 = krg_fft_size(want1), ce->m2 = krg_fft_size(want2);
        if (ce->m1 < 0 || ce->m2 < 0)
            return trv_error(ctx, TRV_ERR_USAGE,
                             "the simulation lattice of %d x %d nodes needs a torus of %ld x %ld nodes (at most 2^30 "
                             "a side): use a coarser --tr or a smaller --te",
                             n1, n2, want1, want2);
        double rel = -1;
        trv_status st = torus(ctx, ce, &m0, dx, dy, &rel);
        if (st)
            return st;
        if (rel >= -1e-10)
            return TRV_OK;
        if ((double)ce->m1 * ce->m2 * 4 > (double)(1L << DOUBLE_TORUS_LOG2)) { /* the largest torus: clip */
            trv_info(ctx, 1,
                     "note: circulant embedding not positive definite; %.3g%% of the variance dropped with the "
                     "negative eigenvalues",
                     100 * ce->lost);
            return TRV_OK;
        }
        want1 = 2L * ce->m1, want2 = 2L * ce->m2;
    }
}

void krg_ce_free(krg_ce *ce)
{
    torus_free(ce);
    memset(ce, 0, sizeof *ce);
}

/* Row r of the draw: m1 pairs of deviates (real, imaginary) times sq. */
static void draw_row(const krg_ce *ce, trv_rng *rng, const double *sq, double *z)
{
    for (int c = 0; c < ce->m1; c++) {
        z[2 * c] = sq[c] * krg_zig_normal(&ce->zig, rng);
        z[2 * c + 1] = sq[c] * krg_zig_normal(&ce->zig, rng);
    }
}

/* Out of core: each row drawn (sq's row read) and transformed, its columns
 * 0..n1-1 into the work file (rows of n1); those columns transformed, rows
 * 0..n2-1 kept. */
static trv_status draw_disk(trv_ctx *ctx, krg_ce *ce, trv_rng *rng)
{
    int m1 = ce->m1, n1 = ce->n1;
    trv_status st = TRV_OK;
    for (int r = 0; r < ce->m2 && !st; r++)
        if (!(st = io(ctx, ce->fd_sq, ce->sq, 8 * (size_t)m1, (off_t)r * m1 * 8, 0))) {
            draw_row(ce, rng, ce->sq, ce->work);
            krg_fft(&ce->f1, ce->work);
            st = io(ctx, ce->fd_w, ce->work, 16 * (size_t)n1, at(r, n1, 0), 1);
        }
    return st ? st : disk_cols(ctx, ce, n1, n1, ce->n2, 0);
}

trv_status krg_ce_draw(trv_ctx *ctx, krg_ce *ce, uint64_t seed)
{
    trv_rng r;
    trv_rng_seed(&r, seed);
    if (ce->disk)
        return draw_disk(ctx, ce, &r);
    for (int row = 0; row < ce->m2; row++)
        draw_row(ce, &r, ce->sq + (size_t)row * ce->m1, ce->work + 2 * (size_t)row * ce->m1);
    fft2(ce, ce->work, ce->n1);
    return TRV_OK;
}

/* The real and imaginary parts of n complex values into a and b. */
static void split(const double *z, int n, double *a, double *b)
{
    for (int c = 0; c < n; c++) {
        a[c] = z[2 * c];
        b[c] = z[2 * c + 1];
    }
}

/* Out of core: rows r0 .. r0 + n - 1, columns c0 .. c0 + m - 1 from the
 * work file through a buffer of a column chunk's bytes (16 cols m2,
 * within the budget), at least one row of the window; whole rows read
 * together, a narrower window row by row. */
static trv_status window_disk(trv_ctx *ctx, const krg_ce *ce, int r0, int n, int c0, int m, double *a, double *b)
{
    size_t per = 16 * (size_t)m, room = 16 * (size_t)ce->cols * ce->m2;
    int step = m < ce->n1 ? 1 : room / per < (size_t)n ? (int)(room / per) : n;
    step = step > 1 ? step : 1;
    double *z = malloc(step * per);
    if (!z)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    trv_status st = TRV_OK;
    for (int row = r0; row < r0 + n && !st; row += step) {
        int k = r0 + n - row < step ? r0 + n - row : step;
        st = io(ctx, ce->fd_w, z, (size_t)k * per, at(row, ce->n1, c0), 0);
        for (int j = 0; j < k && !st; j++) {
            size_t o = (size_t)(row - r0 + j) * m;
            split(z + 2 * (size_t)j * m, m, a + o, b + o);
        }
    }
    free(z);
    return st;
}

trv_status krg_ce_window(trv_ctx *ctx, const krg_ce *ce, int r0, int n, int c0, int m, double *a, double *b)
{
    if (r0 < 0 || n < 0 || r0 + n > ce->n2 || c0 < 0 || m < 1 || c0 + m > ce->n1)
        return trv_error(ctx, TRV_ERR_INTERNAL, "lattice rows %d to %d, columns %d to %d of %d x %d asked for", r0,
                         r0 + n - 1, c0, c0 + m - 1, ce->n1, ce->n2);
    if (ce->disk)
        return window_disk(ctx, ce, r0, n, c0, m, a, b);
    for (int row = r0; row < r0 + n; row++) {
        size_t o = (size_t)(row - r0) * m;
        split(ce->work + 2 * ((size_t)row * ce->m1 + c0), m, a + o, b + o);
    }
    return TRV_OK;
}
