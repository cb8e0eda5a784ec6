/* The terrain's point cloud as an Entwine Point Tile dataset (ept.h). */
#include "terrain/ept.h"

#include "core/json.h"
#include "core/rowtext.h"
#include "core/tempfile.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SCALE 0.001

const char *const ter_ept_names[] = {"ept.json", "ept-data", "ept-hierarchy", NULL};

struct ter_ept {
    char *final, *tmp;      /* the dataset's directory, and where it is written */
    geo_grid g;             /* gt, nx, ny and the CRS (copied) */
    int D;                  /* the deepest depth */
    double ox, oy;          /* X and Y offsets (metres; Z's is 0) */
    FILE **lv;              /* one temporary file of records per depth */
    trv_rowtext **rt;       /* by tiles (ter_ept_tiles): each depth's records put in row order */
    int ntx;                /* tiles across (1: whole rows) */
    uint64_t n;
    double lo[3], hi[3];    /* the points' bounds (as stored) */
    long bad_y, bad_c;      /* the row-major first cell beyond EPT's coordinates in this row of tiles */
    double bad_v;           /* (bad_y < 0: none) and its coordinate */
};

typedef struct node {
    int d;
    long x, y, z;
    uint64_t count;
} node;

typedef struct nodes {
    node *v;
    size_t n, cap;
} nodes;

/* ---- the pure parts ----------------------------------------------------- */

int ter_ept_depths(double side_cells)
{
    int D = 0;
    while (ceil(side_cells / ldexp(1.0, D)) > TER_EPT_SPAN && D < 30)
        D++;
    return D;
}

static int trailing_zeros(long k, int D)
{
    int t = 0;
    while (t < D && (k & 1) == 0 && k != 0)
        k >>= 1, t++;
    return k == 0 ? D : t;
}

int ter_ept_depth_of(long c, long r, int D)
{
    int tc = trailing_zeros(c, D), tr = trailing_zeros(r, D);
    return D - (tc < tr ? tc : tr);
}

long ter_ept_index(double v, double v0, double S, int d)
{
    double n = ldexp(1.0, d);
    long i = (long)floor((v - v0) / S * n);
    return i < 0 ? 0 : i >= (long)n ? (long)n - 1 : i;
}

/* ---- files ---------------------------------------------------------------- */

static trv_status io_error(trv_ctx *ctx, const ter_ept *e, const char *what)
{
    return trv_error(ctx, TRV_ERR_IO, "cannot write the point cloud '%s' (%s): %s", e->final, what, strerror(errno));
}

/* name inside the temporary directory (malloc'ed; NULL when out of memory). */
static char *path_in(const ter_ept *e, const char *name)
{
    return trv_path_join(e->tmp, name);
}

/* A node's file name "ept-data/D-X-Y-Z.bin" into buf (64 bytes). */
static void node_file(char *buf, const node *nd)
{
    snprintf(buf, 64, "ept-data/%d-%ld-%ld-%ld.bin", nd->d, nd->x, nd->y, nd->z);
}

/* In the temporary directory: ept-data/, ept-hierarchy/ and a records file per depth. */
static trv_status make_tree(trv_ctx *ctx, ter_ept *e)
{
    const char *sub[2] = {"ept-data", "ept-hierarchy"};
    for (int k = 0; k < 2; k++) {
        char *p = path_in(e, sub[k]);
        int bad = !p || mkdir(p, 0777) != 0;
        free(p);
        if (bad)
            return io_error(ctx, e, sub[k]);
    }
    for (int d = 0; d <= e->D; d++) {
        char name[32];
        snprintf(name, sizeof name, ".depth-%d", d);
        char *p = path_in(e, name);
        e->lv[d] = p ? fopen(p, "w+b") : NULL;
        free(p);
        if (!e->lv[d])
            return io_error(ctx, e, "a temporary file");
    }
    return TRV_OK;
}

trv_status ter_ept_open(trv_ctx *ctx, trv_outset *set, const char *dir, const geo_grid *g, ter_ept **out)
{
    *out = NULL;
    ter_ept *e = calloc(1, sizeof *e);
    if (!e || !(e->final = strdup(dir))) {
        free(e);
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    *out = e;
    trv_status st = geo_grid_copy(ctx, &e->g, g);
    if (st)
        return st;
    char *parent = strdup(dir), *slash = parent ? strrchr(parent, '/') : NULL;
    if (slash && slash != parent) { /* created like -o's directory, and removed again on failure */
        *slash = '\0';
        st = trv_outset_mkdir(ctx, set, parent);
    }
    free(parent);
    if (st)
        return st;
    if (!(e->tmp = (char *)trv_outset_add_dir(set, dir, ter_ept_names)))
        return trv_error(ctx, TRV_ERR_IO, "cannot create the point cloud '%s': %s", dir, strerror(errno));
    e->D = ter_ept_depths(g->nx > g->ny ? g->nx : g->ny);
    e->ntx = 1, e->bad_y = -1;
    e->ox = round(g->gt[0] + 0.5 * g->nx * g->gt[1]);
    e->oy = round(g->gt[3] + 0.5 * g->ny * g->gt[5]);
    for (int k = 0; k < 3; k++)
        e->lo[k] = INFINITY, e->hi[k] = -INFINITY;
    if (!(e->lv = calloc((size_t)e->D + 1, sizeof *e->lv)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    return make_tree(ctx, e);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        p[k] = (unsigned char)(v >> (8 * k));
}

static int32_t get32(const unsigned char *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

trv_status ter_ept_tiles(trv_ctx *ctx, ter_ept *e, int ntx, int th)
{
    if (ntx <= 1)
        return TRV_OK;
    if (!(e->rt = calloc((size_t)e->D + 1, sizeof *e->rt)))
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    e->ntx = ntx;
    trv_status st = TRV_OK;
    for (int d = 0; d <= e->D && !st; d++)
        st = trv_rowtext_open(ctx, e->lv[d], e->final, ntx, th, &e->rt[d]);
    return st;
}

/* Cell c of row y as a record into r, its bounds taken; 0 when a
 * coordinate is beyond EPT's 32-bit millimetres (*bad: that coordinate). */
static int record(ter_ept *e, long c, double yc, float z, float slope, unsigned char soil, unsigned char lu,
                  unsigned char *r, double *bad)
{
    double v[3] = {geo_grid_x(&e->g, c) - e->ox, yc - e->oy, z}, q[3];
    for (int k = 0; k < 3; k++) {
        q[k] = nearbyint(v[k] * 1000); /* exact for a Float32 z; ties to even, as printf's %.3f */
        if (!(fabs(q[k]) < 2147483647.0)) {
            *bad = v[k];
            return 0;
        }
    }
    for (int k = 0; k < 3; k++) {
        put32(r + 4 * k, (uint32_t)(int32_t)q[k]);
        double s = (k == 0 ? e->ox : k == 1 ? e->oy : 0) + q[k] * SCALE;
        e->lo[k] = s < e->lo[k] ? s : e->lo[k];
        e->hi[k] = s > e->hi[k] ? s : e->hi[k];
    }
    uint32_t sb;
    memcpy(&sb, &slope, 4);
    put32(r + 12, sb);
    r[16] = soil, r[17] = 0, r[18] = lu, r[19] = 0;
    return 1;
}

/* Row y's cells x0 .. x0 + n - 1 (row r of tile tx) into the depths' files. */
static trv_status seg(trv_ctx *ctx, ter_ept *e, int tx, int r, int y, int x0, int n, const float *z, float nodata,
                      const float *slope, const unsigned char *soil, const unsigned char *landuse)
{
    FILE *lvf[32];
    for (int d = 0; d <= e->D; d++)
        lvf[d] = e->rt ? trv_rowtext_row(e->rt[d], tx, r) : e->lv[d];
    const double yc = geo_grid_y(&e->g, y);
    for (int i = 0; i < n; i++) {
        unsigned char rec[TER_EPT_RECORD];
        double bad;
        const long c = x0 + i;
        if (z[i] == nodata)
            continue;
        if (!record(e, c, yc, z[i], slope[i], soil[i], landuse[i], rec, &bad)) {
            if (e->bad_y < 0 || y < e->bad_y || (y == e->bad_y && c < e->bad_c))
                e->bad_y = y, e->bad_c = c, e->bad_v = bad;
            continue;
        }
        if (fwrite(rec, TER_EPT_RECORD, 1, lvf[ter_ept_depth_of(c, y, e->D)]) != 1)
            return io_error(ctx, e, "a temporary file");
        e->n++;
    }
    return TRV_OK;
}

trv_status ter_ept_tile(trv_ctx *ctx, ter_ept *e, int tx, int x0, int y0, int nx, int ny, const float *z, float nodata,
                        const float *slope, const unsigned char *soil, const unsigned char *landuse)
{
    trv_status st = TRV_OK;
    for (int r = 0; r < ny && !st; r++) {
        size_t at = (size_t)r * nx;
        st = seg(ctx, e, tx, r, y0 + r, x0, nx, z + at, nodata, slope + at, soil + at, landuse + at);
    }
    for (int d = 0; e->rt && d <= e->D && !st; d++)
        st = trv_rowtext_tile_end(ctx, e->rt[d], tx, ny);
    if (!st && e->bad_y >= 0 && tx == e->ntx - 1)
        st = trv_error(ctx, TRV_ERR_DATA, "the point cloud '%s': a coordinate %.3f m from its offset "
                       "is beyond EPT's 32-bit millimetres", e->final, e->bad_v);
    return st;
}

/* ---- the nodes ------------------------------------------------------------ */

static int node_cmp(const void *a, const void *b)
{
    const node *p = a, *q = b;
    if (p->d != q->d)
        return p->d < q->d ? -1 : 1;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->y != q->y)
        return p->y < q->y ? -1 : 1;
    return (p->z > q->z) - (p->z < q->z);
}

static int nodes_add(nodes *ns, node nd)
{
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? 2 * ns->cap : 256;
        node *v = realloc(ns->v, cap * sizeof *v);
        if (!v)
            return -1;
        ns->v = v, ns->cap = cap;
    }
    ns->v[ns->n++] = nd;
    return 0;
}

/* A band's point: its node (x and z index; the band fixes d and y) and its place in the band. */
typedef struct member {
    long x, z;
    size_t seq;
} member;

static int member_cmp(const void *a, const void *b)
{
    const member *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    if (p->z != q->z)
        return p->z < q->z ? -1 : 1;
    return (p->seq > q->seq) - (p->seq < q->seq);
}

typedef struct cube {
    double x0, y0, z0, S;
} cube;

static double coord(const ter_ept *e, const unsigned char *r, int k)
{
    return (k == 0 ? e->ox : k == 1 ? e->oy : 0) + get32(r + 4 * k) * SCALE;
}

/* The band's points (recs, n of them, depth d, node row y): sorted by node,
 * each node's run written to its file. */
static trv_status write_band(trv_ctx *ctx, const ter_ept *e, const cube *cb, int d, long y,
                             const unsigned char *recs, size_t n, member *m, nodes *ns)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char *r = recs + i * TER_EPT_RECORD;
        m[i] = (member){ter_ept_index(coord(e, r, 0), cb->x0, cb->S, d), ter_ept_index(coord(e, r, 2), cb->z0, cb->S, d), i};
    }
    qsort(m, n, sizeof *m, member_cmp);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && m[j].x == m[i].x && m[j].z == m[i].z;)
            j++;
        node nd = {d, m[i].x, y, m[i].z, j - i};
        char name[64];
        node_file(name, &nd);
        char *p = path_in(e, name);
        FILE *f = p ? fopen(p, "wb") : NULL;
        free(p);
        int bad = !f;
        for (size_t k = i; k < j && !bad; k++)
            bad = fwrite(recs + m[k].seq * TER_EPT_RECORD, TER_EPT_RECORD, 1, f) != 1;
        if ((f && fclose(f) != 0) || bad)
            return io_error(ctx, e, name);
        if (nodes_add(ns, nd))
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    }
    return TRV_OK;
}

/* A band's records held in memory at most (44 bytes each with their sort
 * keys: 2.75 MiB; larger is slower: the sort leaves the caches), TRV_EPT_BAND records from the environment when set (an
 * integer >= 1; the tests' way to the grouped path on small data); a
 * larger band is sorted a group of node columns at a time. */
enum { BAND_CAP = 1 << 16, CHUNK = 3276 };

static uint64_t band_cap(void)
{
    const char *v = getenv("TRV_EPT_BAND");
    char *end;
    long long n = v && *v ? strtoll(v, &end, 10) : 0;
    return v && *v && !*end && n >= 1 ? (uint64_t)n : BAND_CAP;
}

/* Reading one depth's file back: its descriptor, the band being gathered. */
typedef struct depth_io {
    int fd;
    unsigned char *recs;    /* the band's records (up to BAND_CAP), or a group's */
    member *m;
    size_t cap;             /* room in recs and m, in records */
} depth_io;

static trv_status read_error(trv_ctx *ctx)
{
    return trv_error(ctx, TRV_ERR_IO, "cannot read back the point cloud's temporary file: %s",
                     strerror(errno ? errno : EIO));
}

/* n records of fd at record index at into buf (out: written from buf). */
static int recs_move(int fd, unsigned char *buf, size_t n, uint64_t at, int out)
{
    errno = 0;
    return trv_fd_move(fd, buf, n * TER_EPT_RECORD, (off_t)(at * TER_EPT_RECORD), out);
}

/* Records a .. a + n - 1 of fd read CHUNK at a time, each handed to fn
 * with its index in the file, in order; fn's first error ends the reading
 * and is returned. */
typedef trv_status (*record_fn)(trv_ctx *ctx, void *arg, const unsigned char *r, uint64_t i);

static trv_status each_record(trv_ctx *ctx, int fd, uint64_t a, uint64_t n, record_fn fn, void *arg)
{
    unsigned char buf[CHUNK * TER_EPT_RECORD];
    for (uint64_t i = 0; i < n; i += CHUNK) {
        const size_t k = n - i < CHUNK ? (size_t)(n - i) : CHUNK;
        if (!recs_move(fd, buf, k, a + i, 0))
            return read_error(ctx);
        for (size_t j = 0; j < k; j++) {
            trv_status st = fn(ctx, arg, buf + j * TER_EPT_RECORD, a + i + j);
            if (st)
                return st;
        }
    }
    return TRV_OK;
}

/* Room for n records in io. */
static trv_status room(trv_ctx *ctx, depth_io *io, size_t n)
{
    if (n <= io->cap)
        return TRV_OK;
    size_t cap = io->cap ? io->cap : 4096;
    while (cap < n)
        cap *= 2;
    unsigned char *r = realloc(io->recs, cap * TER_EPT_RECORD);
    member *m = r ? realloc(io->m, cap * sizeof *m) : NULL;
    io->recs = r ? r : io->recs, io->m = m ? m : io->m;
    if (!r || !m)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    io->cap = cap;
    return TRV_OK;
}

/* The node column of record r at depth d. */
static long node_x(const ter_ept *e, const cube *cb, int d, const unsigned char *r)
{
    return ter_ept_index(coord(e, r, 0), cb->x0, cb->S, d);
}

/* A large band's groups: gx node columns each, their records' places in
 * the scratch file (group g: off[g] .. off[g + 1] - 1), buffered gb at a
 * time (256, fewer when the buffers would pass 4 MiB, at least 16). */
typedef struct groups {
    long gx;
    size_t G, gb;
    uint64_t *off, *put;    /* G + 1 starts; records placed so far */
    unsigned char *buf;     /* G x GB records */
    int *fill, sc;          /* records in each group's buffer; the scratch file */
    const ter_ept *e;       /* the band's writer, cube and depth */
    const cube *cb;
    int d, place;           /* the pass: 0 counting, 1 placing */
} groups;

/* Group g's buffered records to the scratch file. */
static int groups_flush(groups *gs, size_t g)
{
    int ok = recs_move(gs->sc, gs->buf + g * gs->gb * TER_EPT_RECORD, (size_t)gs->fill[g], gs->off[g] + gs->put[g], 1);
    gs->put[g] += (uint64_t)gs->fill[g];
    gs->fill[g] = 0;
    return ok;
}

/* Record r counted in its group (gs->place 0), or put in its group's
 * place (1). */
static trv_status group_record(trv_ctx *ctx, void *arg, const unsigned char *r, uint64_t i)
{
    (void)i;
    groups *gs = arg;
    size_t g = (size_t)(node_x(gs->e, gs->cb, gs->d, r) / gs->gx);
    if (!gs->place) {
        gs->off[g + 1]++;
        return TRV_OK;
    }
    memcpy(gs->buf + (g * gs->gb + (size_t)gs->fill[g]++) * TER_EPT_RECORD, r, TER_EPT_RECORD);
    if ((size_t)gs->fill[g] == gs->gb && !groups_flush(gs, g))
        return io_error(ctx, gs->e, "a temporary file");
    return TRV_OK;
}

/* Records a .. a + n - 1 counted per group (place 0), or put in their
 * group's place (place 1), each group's in their order. */
static trv_status groups_pass(trv_ctx *ctx, depth_io *io, uint64_t a, uint64_t n, groups *gs, int place)
{
    gs->place = place;
    trv_status st = each_record(ctx, io->fd, a, n, group_record, gs);
    for (size_t g = 0; g < gs->G && !st; g++) {
        if (!place)
            gs->off[g + 1] += gs->off[g]; /* the counts made starts */
        else if (gs->fill[g] && !groups_flush(gs, g))
            st = io_error(ctx, gs->e, "a temporary file");
    }
    return st;
}

/* A band too large for memory (records a .. a + n - 1 of depth d, node
 * row y): put in order of groups of node columns (each group's records
 * in the band's order) in a scratch file, then each group sorted and
 * written as the band would have been: the same node files. A group
 * holds at most band_cap() records (but one node column, when the cap is
 * below (span + 2)^2): a node column holds at most (span + 1)^2 of a
 * depth's points. */
static trv_status write_band_groups(trv_ctx *ctx, const ter_ept *e, const cube *cb, int d, long y, depth_io *io,
                                    uint64_t a, uint64_t n, nodes *ns)
{
    const long span = (long)ceil((e->g.nx > e->g.ny ? e->g.nx : e->g.ny) / ldexp(1.0, e->D));
    groups gs = {.gx = (long)(band_cap() / (uint64_t)((span + 2) * (span + 2))), .sc = -1, .e = e, .cb = cb, .d = d};
    gs.gx = gs.gx > 0 ? gs.gx : 1;
    gs.G = (size_t)((((long)1 << d) + gs.gx - 1) / gs.gx);
    gs.gb = ((size_t)4 << 20) / TER_EPT_RECORD / gs.G;
    gs.gb = gs.gb > 256 ? 256 : gs.gb < 16 ? 16 : gs.gb;
    gs.off = calloc(gs.G + 1, sizeof *gs.off), gs.put = calloc(gs.G, sizeof *gs.put);
    gs.fill = calloc(gs.G, sizeof *gs.fill), gs.buf = malloc(gs.G * gs.gb * TER_EPT_RECORD);
    trv_status st = !gs.off || !gs.put || !gs.fill || !gs.buf ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : TRV_OK;
    if (!st && (gs.sc = trv_temp_fd(e->tmp, ".band")) < 0)
        st = io_error(ctx, e, "a temporary file");
    for (int place = 0; place < 2 && !st; place++)
        st = groups_pass(ctx, io, a, n, &gs, place);
    for (size_t g = 0; g < gs.G && !st; g++) {
        size_t k = (size_t)(gs.off[g + 1] - gs.off[g]);
        if (k && !(st = room(ctx, io, k)))
            st = recs_move(gs.sc, io->recs, k, gs.off[g], 0) ? write_band(ctx, e, cb, d, y, io->recs, k, io->m, ns)
                                                            : read_error(ctx);
    }
    if (gs.sc >= 0)
        close(gs.sc);
    free(gs.off);
    free(gs.put);
    free(gs.fill);
    free(gs.buf);
    return st;
}

/* Depth d's file read back: the band being gathered, records a .. a +
 * n - 1 of node row band (n 0: none yet), the first cap of them in io. */
typedef struct band_pass {
    const ter_ept *e;
    const cube *cb;
    int d;
    nodes *ns;
    depth_io io;
    uint64_t a, n, cap;
    long band;
} band_pass;

/* The band gathered, if any, sorted and written: from memory when it
 * holds at most cap records, else by groups. */
static trv_status band_end(trv_ctx *ctx, band_pass *p)
{
    if (!p->n)
        return TRV_OK;
    return p->n <= p->cap ? write_band(ctx, p->e, p->cb, p->d, p->band, p->io.recs, (size_t)p->n, p->io.m, p->ns)
                          : write_band_groups(ctx, p->e, p->cb, p->d, p->band, &p->io, p->a, p->n, p->ns);
}

/* Record r, the file's i-th: the band before it ended when r starts
 * another node row; r gathered. */
static trv_status band_record(trv_ctx *ctx, void *arg, const unsigned char *r, uint64_t i)
{
    band_pass *p = arg;
    long y = ter_ept_index(coord(p->e, r, 1), p->cb->y0, p->cb->S, p->d);
    if (y != p->band) {
        trv_status st = band_end(ctx, p);
        if (st)
            return st;
        p->band = y, p->a = i, p->n = 0;
    }
    if (++p->n > p->cap)
        return TRV_OK;
    trv_status st = room(ctx, &p->io, (size_t)p->n);
    if (!st)
        memcpy(p->io.recs + (p->n - 1) * TER_EPT_RECORD, r, TER_EPT_RECORD);
    return st;
}

/* Depth d's records, read back in row order, band by band: a band's
 * records are contiguous (rows in order), held in memory up to band_cap(). */
static trv_status write_depth(trv_ctx *ctx, ter_ept *e, const cube *cb, int d, nodes *ns)
{
    FILE *f = e->lv[d];
    if (ferror(f) || fflush(f) != 0 || fseeko(f, 0, SEEK_END) != 0)
        return io_error(ctx, e, "a temporary file");
    const uint64_t total = (uint64_t)ftello(f) / TER_EPT_RECORD;
    band_pass p = {.e = e, .cb = cb, .d = d, .ns = ns, .io = {.fd = fileno(f)}, .cap = band_cap(), .band = -1};
    trv_status st = room(ctx, &p.io, 4096);
    if (!st)
        st = each_record(ctx, p.io.fd, 0, total, band_record, &p);
    if (!st)
        st = band_end(ctx, &p); /* the last band */
    free(p.io.recs);
    free(p.io.m);
    return st;
}

/* Every ancestor of a node with points, with count 0 and an empty file,
 * where the hierarchy lacks it: depth by depth from the deepest, so a
 * parent added is itself given its parent. The list ends sorted. */
static trv_status add_ancestors(trv_ctx *ctx, const ter_ept *e, nodes *ns)
{
    qsort(ns->v, ns->n, sizeof *ns->v, node_cmp);
    for (int d = e->D; d > 0; d--) {
        size_t n = ns->n;
        for (size_t i = 0; i < n; i++) {
            if (ns->v[i].d != d)
                continue;
            node p = {d - 1, ns->v[i].x >> 1, ns->v[i].y >> 1, ns->v[i].z >> 1, 0};
            int known = bsearch(&p, ns->v, n, sizeof p, node_cmp) != NULL;
            for (size_t k = n; k < ns->n && !known; k++) /* added in this pass */
                known = node_cmp(&ns->v[k], &p) == 0;
            if (known)
                continue;
            char name[64];
            node_file(name, &p);
            char *path = path_in(e, name);
            FILE *f = path ? fopen(path, "wb") : NULL;
            free(path);
            if (!f || fclose(f) != 0)
                return io_error(ctx, e, name);
            if (nodes_add(ns, p))
                return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        }
        qsort(ns->v, ns->n, sizeof *ns->v, node_cmp);
    }
    return TRV_OK;
}

/* ---- the two JSON documents ------------------------------------------------ */

static trv_status write_hierarchy(trv_ctx *ctx, const ter_ept *e, const nodes *ns)
{
    char *p = path_in(e, "ept-hierarchy/0-0-0-0.json");
    FILE *f = p ? fopen(p, "w") : NULL;
    free(p);
    if (!f)
        return io_error(ctx, e, "ept-hierarchy/0-0-0-0.json");
    fputs("{\n", f);
    for (size_t i = 0; i < ns->n; i++)
        fprintf(f, "  \"%d-%ld-%ld-%ld\": %llu%s\n", ns->v[i].d, ns->v[i].x, ns->v[i].y, ns->v[i].z,
                (unsigned long long)ns->v[i].count, i + 1 < ns->n ? "," : "");
    fputs("}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return io_error(ctx, e, "ept-hierarchy/0-0-0-0.json");
    return TRV_OK;
}

static void schema_item(FILE *f, const char *name, const char *type, int size, double offset, int last)
{
    fprintf(f, "    {\"name\": \"%s\", \"type\": \"%s\", \"size\": %d", name, type, size);
    if (!isnan(offset))
        fprintf(f, ", \"scale\": %g, \"offset\": %.0f", SCALE, offset);
    fprintf(f, "}%s\n", last ? "" : ",");
}

static trv_status write_ept_json(trv_ctx *ctx, const ter_ept *e, const cube *cb)
{
    char *p = path_in(e, "ept.json");
    FILE *f = p ? fopen(p, "w") : NULL;
    free(p);
    if (!f)
        return io_error(ctx, e, "ept.json");
    fprintf(f, "{\n  \"bounds\": [%.3f, %.3f, %.3f, %.3f, %.3f, %.3f],\n", cb->x0, cb->y0, cb->z0, cb->x0 + cb->S,
            cb->y0 + cb->S, cb->z0 + cb->S);
    fprintf(f, "  \"boundsConforming\": [%.3f, %.3f, %.3f, %.3f, %.3f, %.3f],\n", e->lo[0], e->lo[1], e->lo[2],
            e->hi[0], e->hi[1], e->hi[2]);
    fprintf(f, "  \"dataType\": \"binary\",\n  \"hierarchyType\": \"json\",\n  \"points\": %llu,\n",
            (unsigned long long)e->n);
    fputs("  \"schema\": [\n", f);
    schema_item(f, "X", "signed", 4, e->ox, 0);
    schema_item(f, "Y", "signed", 4, e->oy, 0);
    schema_item(f, "Z", "signed", 4, 0, 0);
    schema_item(f, "Slope", "float", 4, NAN, 0);
    schema_item(f, "Soil", "unsigned", 2, NAN, 0);
    schema_item(f, "LandUse", "unsigned", 2, NAN, 1);
    fprintf(f, "  ],\n  \"span\": %d,\n  \"srs\": {", (int)ceil((e->g.nx > e->g.ny ? e->g.nx : e->g.ny) / ldexp(1.0, e->D)));
    geo_crs_desc c = {0};
    trv_ctx *quiet = trv_ctx_new();
    int named = quiet && e->g.wkt && geo_crs_describe(quiet, e->g.wkt, &c) == TRV_OK && c.auth[0] && c.code[0];
    if (named)
        fprintf(f, "\"authority\": \"%s\", \"horizontal\": \"%s\", ", c.auth, c.code);
    fputs("\"wkt\": ", f);
    trv_json_fputs(f, e->g.wkt ? e->g.wkt : "");
    fputs("},\n  \"version\": \"1.0.0\"\n}\n", f);
    geo_crs_desc_clear(&c);
    trv_ctx_free(quiet);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return io_error(ctx, e, "ept.json");
    return TRV_OK;
}

trv_status ter_ept_finish(trv_ctx *ctx, ter_ept *e)
{
    if (e->n == 0)
        return trv_error(ctx, TRV_ERR_DATA, "the point cloud '%s' would hold no point", e->final);
    double w = e->g.nx * e->g.gt[1], h = e->g.ny * fabs(e->g.gt[5]);
    cube cb = {e->g.gt[0], e->g.gt[3] + e->g.ny * e->g.gt[5], floor(e->lo[2]), w > h ? w : h};
    if (e->g.gt[5] > 0) /* a south-up grid starts at its origin */
        cb.y0 = e->g.gt[3];
    if (e->hi[2] - cb.z0 >= cb.S)
        cb.S = ceil(e->hi[2] - cb.z0) + 1;
    nodes ns = {0};
    trv_status st = TRV_OK;
    for (int d = 0; d <= e->D && !st; d++)
        st = write_depth(ctx, e, &cb, d, &ns);
    if (!st)
        st = add_ancestors(ctx, e, &ns);
    if (!st)
        st = write_hierarchy(ctx, e, &ns);
    if (!st)
        st = write_ept_json(ctx, e, &cb);
    free(ns.v);
    return st;
}

void ter_ept_free(ter_ept *e)
{
    if (!e)
        return;
    for (int d = 0; e->rt && d <= e->D; d++)
        trv_rowtext_close(e->rt[d]);
    free(e->rt);
    for (int d = 0; e->lv && d <= e->D; d++) {
        if (!e->lv[d])
            continue;
        fclose(e->lv[d]);
        char name[32];
        snprintf(name, sizeof name, ".depth-%d", d);
        char *p = path_in(e, name);
        if (p)
            remove(p);
        free(p);
    }
    free(e->lv);
    geo_grid_clear(&e->g);
    free(e->final);
    free(e);
}
