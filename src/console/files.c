/* The console's URL layout (console.h): a URL path to a regular file
 * under one of the roots, its Content-Type, and where web/ is. */
#include "console.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A relative path with no "..", "." or empty segment, no backslash. */
static int safe_rel(const char *p)
{
    if (!*p || strchr(p, '\\'))
        return 0;
    for (const char *s = p;;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
            return 0;
        if (!e)
            return 1;
        s = e + 1;
    }
}

int console_resolve(const console_roots *roots, const char *url, char *out, size_t n)
{
    static const struct {
        const char *prefix;
        size_t off;
    } map[] = {
        {"/web/", offsetof(console_roots, web)},     {"/lib/leaflet/", offsetof(console_roots, leaflet)},
        {"/lib/three/", offsetof(console_roots, three)}, {"/run/", offsetof(console_roots, run)},
        {"/sim/", offsetof(console_roots, sim)},     {"/layers/", offsetof(console_roots, layers)},
    };
    const char *root = NULL, *rel = NULL;
    if (!strcmp(url, "/"))
        root = roots->web, rel = "console.html";
    for (size_t i = 0; !root && i < sizeof map / sizeof *map; i++)
        if (!strncmp(url, map[i].prefix, strlen(map[i].prefix))) {
            root = *(const char *const *)((const char *)roots + map[i].off);
            rel = url + strlen(map[i].prefix);
            if (!root)
                return 0;
        }
    if (!root || !safe_rel(rel))
        return 0;
    int w = snprintf(out, n, "%s/%s", root, rel);
    struct stat sb;
    return w > 0 && (size_t)w < n && stat(out, &sb) == 0 && S_ISREG(sb.st_mode);
}

const char *console_mime(const char *path)
{
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"}, {".js", "application/javascript"}, {".css", "text/css"},
        {".png", "image/png"},                 {".json", "application/json"},     {".tif", "image/tiff"},
        {".csv", "text/csv"},                  {".geojson", "application/geo+json"},
        {".svg", "image/svg+xml"},             {".jsonl", "application/x-ndjson"}, {".md", "text/markdown"},
    };
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash))
        for (size_t i = 0; i < sizeof types / sizeof *types; i++)
            if (!strcmp(dot, types[i][0]))
                return types[i][1];
    return "application/octet-stream";
}

/* dir/console.html is a regular file. */
static int has_page(const char *dir)
{
    char *page = trv_path_join(dir, "console.html");
    struct stat sb;
    int ok = page && !stat(page, &sb) && S_ISREG(sb.st_mode);
    free(page);
    return ok;
}

char *console_web_dir(trv_ctx *ctx)
{
    const char *env = getenv("TRV_WEBDIR");
    if (env && *env) {
        if (has_page(env))
            return strdup(env);
        trv_error(ctx, TRV_ERR_IO, "TRV_WEBDIR: %s/console.html is missing", env);
        return NULL;
    }
    /* the data directory: its web/ (installed: share/traverse/web), else
     * web/ beside it (the repository's data/ and web/) */
    char *readme = trv_data_path(ctx, "README.md"), *slash = readme ? strrchr(readme, '/') : NULL;
    char *dir = NULL;
    if (slash) {
        *slash = '\0';
        static const char *const rel[] = {"web", "../web"};
        for (int i = 0; i < 2 && !dir; i++) {
            dir = trv_path_join(readme, rel[i]);
            if (dir && !has_page(dir))
                free(dir), dir = NULL;
        }
        if (!dir)
            trv_error(ctx, TRV_ERR_IO, "the console's page console.html is in neither %s/web nor %s/../web (set "
                      "TRV_WEBDIR to the repository's web/ directory)", readme, readme);
    }
    free(readme);
    return dir;
}
