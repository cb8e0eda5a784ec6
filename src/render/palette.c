/* Palettes (piecewise-linear sRGB ramps), the automatic choice per layer,
 * route colours, and the Horn hillshade kernel. */
#include "render.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define S(p, hex) {p, {(hex) >> 16 & 255, (hex) >> 8 & 255, (hex) & 255}}

/* matplotlib viridis / magma sampled at 9 even positions (as R viridisLite) */
static const rnd_stop viridis[] = {S(0, 0x440154), S(.125, 0x472d7b), S(.25, 0x3b528b), S(.375, 0x2c728e),
                                   S(.5, 0x21908c), S(.625, 0x27ad81), S(.75, 0x5dc863), S(.875, 0xaadc32),
                                   S(1, 0xfde725)};
static const rnd_stop magma[] = {S(0, 0x000004), S(.125, 0x1d1147), S(.25, 0x51127c), S(.375, 0x822681),
                                 S(.5, 0xb63679), S(.625, 0xe65164), S(.75, 0xfb8861), S(.875, 0xfec287),
                                 S(1, 0xfcfdbf)};
/* hypsometric tint for land: lowland green, foothill yellow, tan, brown, snow */
static const rnd_stop terrain[] = {S(0, 0x2f7a3d), S(.2, 0x6ea558), S(.4, 0xc4d489), S(.6, 0xe6cf94),
                                   S(.8, 0xb08a5f), S(.92, 0x9c8a7c), S(1, 0xf4f1ec)};
/* ColorBrewer (Brewer, Penn State) sequential and diverging schemes */
static const rnd_stop ylorrd[] = {S(0, 0xffffcc), S(.125, 0xffeda0), S(.25, 0xfed976), S(.375, 0xfeb24c),
                                  S(.5, 0xfd8d3c), S(.625, 0xfc4e2a), S(.75, 0xe31a1c), S(.875, 0xbd0026),
                                  S(1, 0x800026)};
static const rnd_stop purples[] = {S(0, 0xfcfbfd), S(.125, 0xefedf5), S(.25, 0xdadaeb), S(.375, 0xbcbddc),
                                   S(.5, 0x9e9ac8), S(.625, 0x807dba), S(.75, 0x6a51a3), S(.875, 0x54278f),
                                   S(1, 0x3f007d)};
static const rnd_stop rdylgn[] = {S(0, 0xa50026), S(.1, 0xd73027), S(.2, 0xf46d43), S(.3, 0xfdae61),
                                  S(.4, 0xfee08b), S(.5, 0xffffbf), S(.6, 0xd9ef8b), S(.7, 0xa6d96a),
                                  S(.8, 0x66bd63), S(.9, 0x1a9850), S(1, 0x006837)};
static const rnd_stop cost[] = {S(0, 0x006837), S(.1, 0x1a9850), S(.2, 0x66bd63), S(.3, 0xa6d96a),
                                S(.4, 0xd9ef8b), S(.5, 0xffffbf), S(.6, 0xfee08b), S(.7, 0xfdae61),
                                S(.8, 0xf46d43), S(.9, 0xd73027), S(1, 0xa50026)};
static const rnd_stop greys[] = {S(0, 0x000000), S(1, 0xffffff)};

#define P(name, about, stops) {name, about, (int)(sizeof stops / sizeof stops[0]), stops}
static const rnd_palette palettes[] = {
    P("viridis", "perceptual blue-green-yellow (default; speed)", viridis),
    P("magma", "perceptual black-purple-orange-white", magma),
    P("terrain", "hypsometric green-tan-brown-white (elevation)", terrain),
    P("ylorrd", "sequential yellow-orange-red (slope)", ylorrd),
    P("purples", "sequential white-purple (kriging standard deviation)", purples),
    P("cost", "RdYlGn reversed: 0 green, 1 red (mobility cost)", cost),
    P("rdylgn", "diverging red-yellow-green", rdylgn),
    P("greys", "black to white", greys),
};
enum { NPAL = sizeof palettes / sizeof palettes[0] };

const rnd_palette *rnd_palette_find(const char *name)
{
    for (int i = 0; name && i < NPAL; i++)
        if (!strcmp(palettes[i].name, name))
            return &palettes[i];
    return NULL;
}

const rnd_palette *rnd_palette_at(int i) { return i >= 0 && i < NPAL ? &palettes[i] : NULL; }

/* Case-insensitive substring test. */
static int has(const char *s, const char *word)
{
    if (!s)
        return 0;
    size_t n = strlen(word);
    for (; *s; s++) {
        size_t k = 0;
        while (k < n && s[k] && tolower((unsigned char)s[k]) == word[k])
            k++;
        if (k == n)
            return 1;
    }
    return 0;
}

typedef enum kind { K_OTHER, K_ELEV, K_SLOPE, K_SPEED, K_COST, K_STD } kind;

static kind layer_kind(const char *desc, const char *unit)
{
    if (has(desc, "standard deviation") || has(desc, "std"))
        return K_STD;
    if (has(desc, "cost"))
        return K_COST;
    if (has(desc, "slope"))
        return K_SLOPE;
    if (has(desc, "speed"))
        return K_SPEED;
    if (has(desc, "elevation") || has(desc, "height") || has(desc, "dem") ||
        (unit && !strcmp(unit, "m") && (!desc || !*desc)))
        return K_ELEV;
    return K_OTHER;
}

const rnd_palette *rnd_palette_auto(const char *desc, const char *unit)
{
    static const char *const names[] = {"viridis", "terrain", "ylorrd", "viridis", "cost", "purples"};
    return rnd_palette_find(names[layer_kind(desc, unit)]);
}

void rnd_layer_range(const char *desc, const char *unit, double dmin, double dmax, double *lo, double *hi)
{
    kind k = layer_kind(desc, unit);
    *lo = dmin, *hi = dmax;
    if (k == K_COST)
        *lo = 0, *hi = 1;
    else if (k == K_SLOPE || k == K_SPEED || k == K_STD)
        *lo = 0;
    if (!(*hi > *lo)) /* a constant layer: a unit range around it */
        *hi = *lo + 1;
}

void rnd_palette_rgb(const rnd_palette *p, double t, unsigned char rgb[3])
{
    const rnd_stop *s = p->stops;
    int n = p->nstops;
    if (!(t > s[0].pos)) {
        memcpy(rgb, s[0].rgb, 3);
        return;
    }
    if (t >= s[n - 1].pos) {
        memcpy(rgb, s[n - 1].rgb, 3);
        return;
    }
    int k = 1;
    while (k < n - 1 && t > s[k].pos)
        k++;
    double f = (t - s[k - 1].pos) / (s[k].pos - s[k - 1].pos);
    for (int c = 0; c < 3; c++)
        rgb[c] = (unsigned char)lround(s[k - 1].rgb[c] + f * (s[k].rgb[c] - s[k - 1].rgb[c]));
}

/* ---- route colours ------------------------------------------------------ */

static const struct {
    const char *name;
    unsigned hex;
} route_colours[] = {
    {"mmcr", 0xd01c8b},       /* magenta: the paper's planner stands out */
    {"mdr", 0x2166ac},        /* blue */
    {"msr", 0xff7f00},        /* orange */
    {"time", 0x17becf},       /* cyan */
    {"trajectory", 0x1a1a1a}, /* near black */
    {"plan", 0x1f78b4},       /* trv-sim's first plan: blue, drawn wide under the drive */
    {"last_plan", 0x88419d},  /* its last plan after re-planning: purple */
};
static const unsigned route_cycle[] = {0x6a3d9a, 0xb15928, 0x33a02c, 0xe31a1c, 0x1f78b4, 0xfb9a99};

void rnd_cycle_rgb(int k, unsigned char rgb[3])
{
    const int n = (int)(sizeof route_cycle / sizeof route_cycle[0]);
    unsigned hex = route_cycle[(k % n + n) % n];
    rgb[0] = hex >> 16 & 255, rgb[1] = hex >> 8 & 255, rgb[2] = hex & 255;
}

int rnd_route_rgb(const char *name, unsigned char rgb[3])
{
    int dashed = 0;
    if (name && !strncmp(name, "grid-", 5))
        name += 5, dashed = 1;
    unsigned hex = 0;
    int found = 0;
    for (size_t i = 0; name && i < sizeof route_colours / sizeof route_colours[0]; i++)
        if (!strcmp(name, route_colours[i].name))
            hex = route_colours[i].hex, found = 1;
    if (!found) {
        unsigned h = 5381;
        for (const char *c = name ? name : ""; *c; c++)
            h = h * 33 + (unsigned char)*c;
        hex = route_cycle[h % (sizeof route_cycle / sizeof route_cycle[0])];
    }
    rgb[0] = hex >> 16 & 255, rgb[1] = hex >> 8 & 255, rgb[2] = hex & 255;
    return dashed;
}

/* ---- hillshade ----------------------------------------------------------- */

void rnd_light_default(rnd_light *l) { *l = (rnd_light){315, 45, 1}; }

void rnd_hillshade_row(const float *above, const float *row, const float *below, int nx, int has_nodata,
                       float nodata, double ew, double ns, const rnd_light *light, float *out)
{
    const double d2r = M_PI / 180, zf = light->z_factor / 8;
    const double sin_alt = sin(light->altitude_deg * d2r), cos_alt_z = cos(light->altitude_deg * d2r) * zf;
    const double cos_az = cos(light->azimuth_deg * d2r), sin_az = sin(light->azimuth_deg * d2r);
    for (int x = 0; x < nx; x++) {
        float c = row[x];
        if (geo_f32_is_nodata(c, has_nodata, nodata)) {
            out[x] = 0;
            continue;
        }
        /* Horn's differences (geo_horn_diff), over the signed cell sizes:
         * dx points west, dy (ns = gt[5] < 0) north */
        double gx, gy;
        geo_horn_diff(above, row, below, nx, x, has_nodata, nodata, &gx, &gy);
        double dx = -gx / ew;
        double dy = gy / ns;
        double cang = (sin_alt - cos_alt_z * (dy * cos_az - dx * sin_az)) / sqrt(1 + zf * zf * (dx * dx + dy * dy));
        out[x] = cang <= 0 ? 1.0f : (float)(1 + 254 * cang);
    }
}

trv_status rnd_hillshade(trv_ctx *ctx, const geo_raster *dem, const rnd_light *light, geo_raster **out)
{
    *out = NULL;
    if (dem->type != GEO_F32)
        return trv_error(ctx, TRV_ERR_INTERNAL, "hillshade needs a Float32 DEM");
    geo_raster *h;
    trv_status st = geo_raster_new(ctx, &dem->grid, GEO_F32, &h);
    if (st)
        return st;
    h->has_nodata = 1;
    h->nodata = 0;
    const int nx = dem->grid.nx, ny = dem->grid.ny;
    const float *z = dem->f32;
    for (int y = 0; y < ny; y++)
        rnd_hillshade_row(y > 0 ? z + (size_t)(y - 1) * nx : NULL, z + (size_t)y * nx,
                          y + 1 < ny ? z + (size_t)(y + 1) * nx : NULL, nx, dem->has_nodata, (float)dem->nodata,
                          dem->grid.gt[1], dem->grid.gt[5], light, h->f32 + (size_t)y * nx);
    *out = h;
    return TRV_OK;
}
