/* trv-roadmap: Latin-hypercube samples over the GO area joined into a
 * roadmap whose edges cross no NOGO cell. Thin: options -> prm -> status. */
#include "core/json.h"
#include "prm/hier.h"
#include "prm/prm.h"
#include "qgis/qgis.h"
#include "run/lines.h"
#include "run/run.h"
#include "tool.h"

#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>

/* roadmap.json (docs/summaries.md): the counts the tool prints. */
static void summary(trv_json *js, const prm_roadmap *r, const prm_build_stats *bs, const prm_build_opts *o,
                    const char *dir, const trv_meta *meta, const prm_terrain *t)
{
    trv_json_meta(js, meta);
    trv_json_obj(js, "inputs");
    trv_json_str(js, "terrain", dir);
    trv_json_end(js);
    trv_json_num(js, "go_area_km2", "%.10g", bs->go_area_km2);
    trv_json_int(js, "samples", bs->samples);
    trv_json_int(js, "rejected", bs->rejected);
    trv_json_int(js, "nodes", r->nnodes);
    trv_json_int(js, "edges", r->nedges);
    trv_json_str(js, "edge_rule", o->radius > 0 ? "radius" : "k nearest");
    trv_json_int(js, "components", bs->components);
    trv_json_int(js, "largest", bs->largest);
    trv_json_num(js, "largest_fraction", "%.10g", r->nnodes ? (double)bs->largest / r->nnodes : NAN);
    trv_json_num(js, "coverage", "%.10g", bs->coverage);
    if (!o->straight_only) {
        trv_json_int(js, "go_regions", bs->regions);
        trv_json_int(js, "go_regions_with_nodes", bs->regions_with_nodes);
        trv_json_int(js, "region_nodes", bs->region_nodes);
        trv_json_int(js, "components_straight", bs->components_straight);
        trv_json_int(js, "bridges", bs->bridges);
        trv_json_int(js, "bridge_nodes", bs->bridge_nodes);
        trv_json_int(js, "bridge_edges", bs->bridge_edges);
        trv_json_num(js, "detour_stretch", "%.10g", bs->detour);
        trv_json_int(js, "detour_bridges", bs->detours);
        trv_json_int(js, "detour_nodes", bs->detour_nodes);
        trv_json_int(js, "detour_edges", bs->detour_edges);
    }
    trv_json_str(js, "travel_time", t->aniso ? "direction-aware" : "isotropic");
    if (!t->aniso)
        trv_json_str(js, "travel_time_note", t->time_note);
}

/* A tiled build's hierarchical index for trv-route (hier.h), ROADMAP.hier
 * beside the GeoPackage in the set; none for a whole build. */
static trv_status write_hier(trv_ctx *ctx, tool_out *w, const prm_roadmap *r, const prm_build_opts *o,
                             const prm_terrain *t, const char *out)
{
    int tile = prm_hier_tile(o, t->grid);
    if (tile <= 0)
        return TRV_OK;
    char *path = prm_hier_path(out);
    const char *tmp = path ? trv_outset_add(w->set, path) : NULL;
    free(path);
    prm_hier *h = NULL;
    trv_status st = !tmp ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory") : prm_hier_build(ctx, r, t->grid, tile, &h);
    if (!st)
        st = prm_hier_write(ctx, h, tmp);
    prm_hier_free(h);
    return st;
}

/* The roadmap (with its layers' QGIS styles in its layer_styles table,
 * where QGIS reads a GeoPackage layer's default style), its cache (the
 * GeoPackage's name with .bin) and roadmap.json beside it in one set: all
 * or none. */
static trv_status write_all(trv_ctx *ctx, const prm_roadmap *r, const prm_build_stats *bs, const prm_build_opts *o,
                            const char *dir, const char *out, const trv_meta *meta, const prm_terrain *t,
                            const prm_terrain_facts *f, struct json_object **doc)
{
    tool_out w;
    trv_status st = tool_out_open(ctx, &w, trv_path_beside(out, run_other_file(RUN_O_ROADMAP_JSON)));
    w.doc = doc;
    const char *tmp = st ? NULL : trv_outset_add(w.set, out);
    if (!st && !tmp)
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    if (!st)
        st = prm_roadmap_write(ctx, r, tmp, meta);
    if (!st) {
        static const char *const names[2] = {"edges", "nodes"};
        char *inner[2] = {qgis_qml_roadmap_edges_xml(), qgis_qml_roadmap_nodes_xml()};
        st = inner[0] && inner[1] ? qgis_gpkg_styles_write(ctx, tmp, names, (const char *const *)inner, 2)
                                  : trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        free(inner[0]);
        free(inner[1]);
    }
    /* the cache trv-route reads instead, made from the finished GeoPackage */
    char *cache = st ? NULL : prm_roadmap_cache_path(out);
    const char *ctmp = cache ? trv_outset_add(w.set, cache) : NULL;
    if (!st)
        st = !ctmp  ? trv_error(ctx, TRV_ERR_NOMEM, "out of memory")
             : t->lazy ? prm_roadmap_cache_write_facts(ctx, r, t, f, dir, tmp, ctmp, 0) /* a tiled build's */
                       : prm_roadmap_cache_write(ctx, r, t, dir, tmp, ctmp);
    free(cache);
    if (!st)
        st = write_hier(ctx, &w, r, o, t, out);
    if (!st)
        summary(w.js, r, bs, o, dir, meta, t);
    return tool_out_close(ctx, &w, st);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *out = NULL;
    prm_build_opts o;
    prm_build_opts_init(&o);
    const trv_opt opts[] = {
        {"terrain", 0, TRV_ARG_STRING, &dir, "DIR", "terrain directory (class, cost, gonogo, dem, slope, speed .tif)"},
        {"output", 'o', TRV_ARG_STRING, &out, "ROADMAP.gpkg", "the roadmap (GeoPackage: layers nodes, edges); its cache for trv-route (.bin), a tiled build's hierarchical index (.hier) and roadmap.json, the run's summary, beside it"},
        {"nodes", 0, TRV_ARG_INT, &o.nodes, "N", "GO nodes, at most 1000000 (default: one per 0.02 km2 of GO area, 200..100000)"},
        {"k", 0, TRV_ARG_INT, &o.k, "K", "connect each node to its K nearest (default 14)"},
        {"radius", 0, TRV_ARG_DOUBLE, &o.radius, "M", "connect each node to every node within M metres instead"},
        {"seed", 0, TRV_ARG_U64, &o.seed, "S", "seed of the Latin hypercube (default 1)"},
        {"straight-only", 0, TRV_ARG_FLAG, &o.straight_only, NULL, "straight edges alone (the paper's PRM): no raster bridges, no node for a GO region the samples missed"},
        {"detour", 0, TRV_ARG_DOUBLE, &o.detour, "F", "also bridge two neighbouring nodes of one component (their raster flood areas touch) when the roadmap's path between them is more than F times the raster bridge: passages the straight edges missed (default 1.5; 0: bridges between components only, as before; not with --tile)"},
        {"tile", 0, TRV_ARG_INT, &o.tile, "N", "raster bridging tile by tile, N x N cells a tile (2..32768; default: the whole grid up to 5e7 cells, tiles of 4096 above): the same nodes and straight edges, other bridges; the terrain read by row blocks and tiles, the cache without its layers (docs/scale.md)"},
        {NULL, 0, 0, NULL, NULL, NULL},
    };
    static const char *const required[] = {"terrain", "output", NULL};
    const trv_cli cli = {
        .tool = "trv-roadmap",
        .usage = "--terrain DIR -o ROADMAP.gpkg [options]",
        .summary = "Sample the GO area by Latin hypercube (seeded; NOGO samples rejected until N nodes) and\n"
                   "connect each node to its nearest neighbours wherever the straight segment crosses no NOGO\n"
                   "cell (exact cell traversal). Edges carry length, the lengths in low-risk, high-risk and\n"
                   "safe cells, slope, traversal time both ways (direction-aware from the run directory's copy of\n"
                   "the speed model, else from speed.tif) and mobility cost.",
        .opts = opts,
        .libraries = tool_libraries,
        .required = required,
    };
    trv_cli_result res;
    trv_ctx *ctx = tool_start(&cli, argc, argv, &res);
    tool_usage_check(&cli, ctx, prm_build_opts_check(ctx, &o));
    tool_outputs_run_dir(&cli, ctx, &out, 1, dir, 0, NULL, 0);
    tool_folders_check(&cli, ctx, &out, 1);
    trv_ctx_set_seed(ctx, o.seed);
    trv_meta meta;
    trv_meta_init(&meta, cli.tool, argc, argv);
    meta.has_seed = 1;
    meta.seed = o.seed;
    trv_meta_add(&meta, "TRV_INPUT_TERRAIN", dir);
    prm_terrain t;
    prm_roadmap *r = NULL;
    prm_build_stats bs;
    prm_terrain_facts f;
    trv_status st = prm_roadmap_terrain(ctx, dir, &o, &t, &f); /* tiled: lazy, its facts by row blocks */
    o.blocks_dir = dir; /* a tiled build reads GO by row blocks there */
    int loaded = st == TRV_OK;
    if (loaded && t.time_note[0])
        fprintf(stderr, "%s: note: %s\n", cli.tool, t.time_note);
    if (!st && !(st = prm_roadmap_build(ctx, &t, &o, &r, &bs))) {
        struct json_object *doc = NULL;
        st = write_all(ctx, r, &bs, &o, dir, out, &meta, &t, &f, res.quiet ? NULL : &doc);
        if (!st && !res.quiet) /* roadmap.json's lines (run/lines.h, the report's too) */
            run_lines_roadmap(doc, tool_print_line, NULL);
        json_object_put(doc);
        prm_roadmap_free(r);
    }
    if (loaded)
        prm_terrain_clear(&t);
    prm_terrain_facts_clear(&f);
    return tool_end(&cli, ctx, st);
}
