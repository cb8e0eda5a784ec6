/* Private to src/fuzzy: trv-cost --terrain's map, whole layers (map.c,
 * fz_map_build) or by row blocks (map_stream.c, fz_map_run), on one
 * per-row kernel. */
#ifndef FZ_MAP_PRIV_H
#define FZ_MAP_PRIV_H

#include "fuzzy.h"
#include "run/run.h"

/* The five input layers' cells from one row on (row-major, nx a row), with
 * their nodata values. */
enum { FZ_IN_DEM, FZ_IN_SLOPE, FZ_IN_SPEED };   /* f[] */
enum { FZ_IN_SOIL, FZ_IN_GONOGO };              /* u[] */
typedef struct fz_rows {
    const float *f[3];
    int fhas[3];
    float fnd[3];
    const unsigned char *u[2];
    int uhas[2];
    unsigned char und[2];
} fz_rows;

/* Set the cells of layer id (RUN_DEM, RUN_SLOPE, RUN_SPEED: Float32;
 * RUN_SOIL, RUN_GONOGO: Byte). */
void fz_rows_layer(fz_rows *in, run_id id, const void *cells, int has_nodata, double nodata);

/* The engine's inputs mapped to the layers, the CI per soil code, and one
 * worker's rows. */
typedef struct fz_job {
    const fz_engine *e;
    const fz_rows *in;
    double ci_of[256];
    int src[FZ_MAX_INPUTS];
    float *cost;
    unsigned char *cls;
    int nx, y0, y1;
    int nomem;
} fz_job;

/* Map e's inputs to the layers (an input that is none is an error) and
 * read the soil table's CI. */
trv_status fz_map_prepare(trv_ctx *ctx, const fz_engine *e, const char *soils_path, fz_job *J);
/* The first of the n cells whose soil code the table lacks: an error
 * naming soil_path and soils_path. */
trv_status fz_map_check_soil(trv_ctx *ctx, const fz_job *J, const fz_rows *in, size_t n, const char *soil_path,
                             const char *soils_path);
/* Rows y0 .. y1 - 1 of in (nx cells each) into cost and cls at the same
 * places, on threads (0: every core) workers. */
trv_status fz_map_rows(trv_ctx *ctx, fz_job *J, const fz_rows *in, int nx, int y0, int y1, int threads, float *cost,
                       unsigned char *cls);
/* m's counts over n cells (in row order): per class, the no-data cells,
 * the cells; *sum and *go the cost over the cells of class >= 1. */
void fz_map_count(fz_map *m, const fz_rows *in, const float *cost, const unsigned char *cls, size_t n, double *sum,
                  size_t *go);
/* The legend of class.tif. */
trv_status fz_map_classes(trv_ctx *ctx, const fz_engine *e, geo_classes **out);

#endif
