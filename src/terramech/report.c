/* trv-speed's report (--report): per land-use class and soil, every speed
 * limit on the flat and in the worse direction at TM_REPORT_GRADE_DEG, the
 * binding one named (terramech.h). */
#include "terramech.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A name as one CSV cell: commas and quotes become spaces. */
static void cell_name(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src);
    for (char *q = dst; *q; q++)
        if (*q == ',' || *q == '"')
            *q = ' ';
}

/* A speed in km/h, empty where the limit does not bind (INFINITY). */
static void put_kmh(FILE *f, double ms)
{
    if (isinf(ms))
        fputc(',', f);
    else
        fprintf(f, ",%.3f", ms * 3.6);
}

/* One grade's columns: [direction,] pull, slip, the six limits, speed, limit. */
static void put_grade(FILE *f, const tm_model *m, int s, int l, double grade, int with_dir)
{
    tm_class_speed cs;
    tm_class_speed_at(m, s, l, grade, &cs);
    if (with_dir)
        fprintf(f, ",%s", cs.downhill ? "down" : "up");
    fprintf(f, ",%.6f,%.6f", cs.at.pull_N / 1000.0, cs.at.slip);
    for (int k = 1; k < TM_NLIMITS; k++)
        put_kmh(f, cs.at.lim_ms[k]);
    fprintf(f, ",%.3f,%s", cs.speed_kmh, cs.reason == TM_GO ? tm_limit_name(cs.limit) : tm_reason_name(cs.reason));
}

static void put_header(FILE *f)
{
    static const char *const lim[TM_NLIMITS] = {NULL, "top", "power", "traction", "ride", "vegetation", "braking"};
    fprintf(f, "landuse_code,landuse,code,name,ci_kPa,mode,sinkage_m,resistance_per_tyre_kN,resistance_total_kN,thrust_kN");
    for (int g = 0; g < 2; g++) {
        char p[32];
        snprintf(p, sizeof p, g ? "grade%g_" : "flat_", TM_REPORT_GRADE_DEG);
        if (g)
            fprintf(f, ",%sdirection", p);
        fprintf(f, ",%spull_kN,%sslip", p, p);
        for (int k = 1; k < TM_NLIMITS; k++)
            fprintf(f, ",%s%s_kmh", p, lim[k]);
        fprintf(f, ",%sspeed_kmh,%slimit", p, p);
    }
    fprintf(f, ",pass\n");
}

static void put_row(FILE *f, const tm_model *m, const tm_soil *s, int l)
{
    int c = s->code;
    const tm_contact *k = &m->contact[c];
    char lname[64], sname[256];
    cell_name(lname, sizeof lname, m->lu_name[l]);
    cell_name(sname, sizeof sname, s->name);
    fprintf(f, "%d,%s,%d,%s,%.2f,%s,%.6f,%.6f,%.6f,", l, lname, c, sname, s->ci_kPa, tm_soil_mode(m, c), k->sinkage_m,
            m->v->kind == TM_WHEELED ? k->resistance_kN : m->resistance_total_kN[c], m->resistance_total_kN[c]);
    if (!isnan(m->thrust_total_kN[c]))
        fprintf(f, "%.6f", m->thrust_total_kN[c]);
    put_grade(f, m, c, l, 0, 0);
    put_grade(f, m, c, l, TM_REPORT_GRADE_DEG, 1);
    const char *pass = s->ci_kPa >= m->vci.vci50_kPa ? "easy" : s->ci_kPa >= m->vci.vci1_kPa ? "difficult" : "no";
    fprintf(f, ",%s\n", pass);
}

trv_status tm_report_write(trv_ctx *ctx, trv_outset *set, const tm_model *m, const tm_soils *soils, const char *path)
{
    const char *tmp = trv_outset_add(set, path);
    if (!tmp)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    FILE *f = fopen(tmp, "w");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
    put_header(f);
    for (int l = 1; l < 256; l++)
        for (int i = 0; i < soils->n && m->landuse_nogo[l] != 2; i++)
            put_row(f, m, &soils->s[i], l);
    int bad = ferror(f);
    trv_status st = TRV_OK;
    if (fclose(f) != 0 || bad)
        st = trv_error(ctx, TRV_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
    return st;
}
