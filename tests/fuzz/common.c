/* The harnesses' shared helpers (fuzz.h). */
#define _GNU_SOURCE
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "geo/geo.h"

#ifndef FUZZ_DATADIR
#define FUZZ_DATADIR "data"
#endif

static char dir[64];
static char path[96], fixed[96];

static void remove_dir(void)
{
    if (path[0])
        unlink(path);
    if (fixed[0])
        unlink(fixed);
    if (dir[0])
        rmdir(dir);
}

static void fuzz_write_dir(void)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/trv-fuzz-XXXXXX");
        if (!mkdtemp(dir))
            abort();
        atexit(remove_dir);
    }
}

static void write_bytes(const char *p, const void *data, size_t size)
{
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f))
        abort();
}

const char *fuzz_file(const uint8_t *data, size_t size, const char *ext)
{
    if (path[0])
        unlink(path);
    fuzz_write_dir();
    snprintf(path, sizeof path, "%s/input%s", dir, ext);
    write_bytes(path, data, size);
    return path;
}

const char *fuzz_write(const char *name, const char *text)
{
    fuzz_write_dir();
    snprintf(fixed, sizeof fixed, "%s/%s", dir, name);
    write_bytes(fixed, text, strlen(text));
    return fixed;
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s) {
        memcpy(s, data, size);
        s[size] = '\0';
    }
    return s;
}

trv_ctx *fuzz_ctx(void)
{
    static trv_ctx *ctx;
    if (!ctx) {
        if (!(ctx = trv_ctx_new()))
            abort();
        trv_ctx_set_verbosity(ctx, 0);
        geo_init();
    }
    return ctx;
}

trv_status fuzz_result(trv_status st)
{
    if (getenv("TRV_FUZZ_VERBOSE"))
        fprintf(stderr, "%s\n", st ? trv_errmsg(fuzz_ctx()) : "ok");
    return st;
}

const char *fuzz_datadir(void)
{
    const char *d = getenv("TRV_DATADIR");
    return d && *d ? d : FUZZ_DATADIR;
}

enum { N = 40 };

const prm_terrain *fuzz_terrain(void)
{
    static prm_terrain t;
    static int built;
    if (built)
        return &t;
    trv_ctx *ctx = fuzz_ctx();
    char *wkt = NULL;
    if (geo_crs_wkt(ctx, "EPSG:32616", &wkt))
        abort();
    geo_grid g = {N, N, {500000, 10, 0, 4000400, 0, -10}, wkt};
    geo_raster **layers[6] = {&t.cls, &t.gonogo, &t.cost, &t.dem, &t.slope, &t.speed};
    for (int k = 0; k < 6; k++)
        if (geo_raster_new(ctx, &g, k < 2 ? GEO_U8 : GEO_F32, layers[k]))
            abort();
    free(wkt);
    for (int i = 0; i < N * N; i++) {
        int r = i / N, c = i % N, nogo = (r == 20 || r == 21) && (c == 20 || c == 21);
        t.cls->u8[i] = nogo ? 0 : 3;
        t.gonogo->u8[i] = nogo;
        t.speed->f32[i] = nogo ? 0 : 36;
        t.cost->f32[i] = nogo ? 1 : 0.2f;
        t.dem->f32[i] = 300 + 0.1f * c;
        t.slope->f32[i] = 0.6f;
    }
    t.grid = &t.cls->grid;
    t.cell_m = 10;
    t.top_speed_kmh = 36;
    built = 1;
    return &t;
}
