/* INI reader with a schema: unknown keys and bad values are errors that
 * name file:line. */
#include "trv.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct ini_entry {
    char *section, *key, *value;
    long line, section_line;
} ini_entry;

struct trv_ini {
    char *path;
    ini_entry *e;
    size_t n, cap;
    char **sec;     /* every section header, in file order */
    long *sec_line;
    size_t nsec, seccap;
};

void trv_ini_free(trv_ini *ini)
{
    if (!ini)
        return;
    for (size_t i = 0; i < ini->n; i++) {
        free(ini->e[i].section);
        free(ini->e[i].key);
        free(ini->e[i].value);
    }
    free(ini->e);
    for (size_t i = 0; i < ini->nsec; i++)
        free(ini->sec[i]);
    free(ini->sec);
    free(ini->sec_line);
    free(ini->path);
    free(ini);
}

const char *trv_ini_section(const trv_ini *ini, size_t i, long *line)
{
    if (i >= ini->nsec)
        return NULL;
    if (line)
        *line = ini->sec_line[i];
    return ini->sec[i];
}

/* Record a section header (name already checked); -1 when out of memory. */
static int add_section(trv_ini *ini, const char *name, long line)
{
    if (ini->nsec == ini->seccap) {
        size_t cap = ini->seccap ? 2 * ini->seccap : 8;
        char **sec = realloc(ini->sec, cap * sizeof *sec);
        if (sec)
            ini->sec = sec;
        long *ln = realloc(ini->sec_line, cap * sizeof *ln);
        if (ln)
            ini->sec_line = ln;
        if (!sec || !ln)
            return -1;
        ini->seccap = cap;
    }
    if (!(ini->sec[ini->nsec] = strdup(name)))
        return -1;
    ini->sec_line[ini->nsec++] = line;
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static int valid_name(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' && *s != '.')
            return 0;
    return 1;
}

trv_status trv_ini_read(trv_ctx *ctx, const char *path, trv_ini **out)
{
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f)
        return trv_error(ctx, TRV_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    trv_ini *ini = calloc(1, sizeof *ini);
    char *section = strdup("");
    char buf[4096];
    long line = 0, section_line = 0;
    trv_status st = TRV_OK;
    if (!ini || !section || !(ini->path = strdup(path))) {
        st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
        goto done;
    }
    while (fgets(buf, sizeof buf, f)) {
        line++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: line too long", path, line);
            goto done;
        }
        char *s = trim(buf);
        if (!*s || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close || *trim(close + 1)) {
                st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: malformed section header '%s'", path, line, s);
                goto done;
            }
            *close = '\0';
            char *name = trim(s + 1);
            if (!valid_name(name)) {
                st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: bad section name '%s'", path, line, name);
                goto done;
            }
            free(section);
            section_line = line;
            if (!(section = strdup(name)) || add_section(ini, name, line)) {
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
                goto done;
            }
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: expected 'key = value', got '%s'", path, line, s);
            goto done;
        }
        *eq = '\0';
        char *key = trim(s);
        char *value = eq + 1;
        /* an inline comment starts at '#' or ';' preceded by whitespace */
        for (char *p = value; *p; p++)
            if ((*p == '#' || *p == ';') && (p == value || isspace((unsigned char)p[-1]))) {
                *p = '\0';
                break;
            }
        value = trim(value);
        if (!valid_name(key)) {
            st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: bad key '%s'", path, line, key);
            goto done;
        }
        for (size_t i = 0; i < ini->n; i++)
            if (!strcmp(ini->e[i].section, section) && !strcmp(ini->e[i].key, key)) {
                st = trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: key '%s' repeated (first at line %ld)", path, line,
                               key, ini->e[i].line);
                goto done;
            }
        if (ini->n == ini->cap) {
            size_t cap = ini->cap ? 2 * ini->cap : 16;
            ini_entry *e = realloc(ini->e, cap * sizeof *e);
            if (!e) {
                st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
                goto done;
            }
            ini->e = e;
            ini->cap = cap;
        }
        ini_entry *e = &ini->e[ini->n];
        e->section = strdup(section);
        e->key = strdup(key);
        e->value = strdup(value);
        e->line = line;
        e->section_line = section_line;
        ini->n++;
        if (!e->section || !e->key || !e->value) {
            st = trv_error(ctx, TRV_ERR_NOMEM, "out of memory reading '%s'", path);
            goto done;
        }
    }
    if (ferror(f))
        st = trv_error(ctx, TRV_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
done:
    fclose(f);
    free(section);
    if (st != TRV_OK)
        trv_ini_free(ini);
    else
        *out = ini;
    return st;
}

static int choice_index(const char *choices, const char *value)
{
    size_t len = strlen(value);
    int i = 0;
    for (const char *p = choices;; i++) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        if (n == len && strncmp(p, value, n) == 0)
            return i;
        if (!bar)
            return -1;
        p = bar + 1;
    }
}

static trv_status bind_one(trv_ctx *ctx, const trv_ini *ini, const ini_entry *e, const trv_ini_key *k)
{
    const char *v = e->value;
    char *end;
    errno = 0;
    switch (k->type) {
    case TRV_INI_DOUBLE: {
        double d = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(d))
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: '%s' must be a number, not '%s'", ini->path, e->line,
                             e->key, v);
        if (d < k->min || d > k->max)
            return trv_error(ctx, TRV_ERR_DATA, "%s:%ld: '%s' = %s is out of range [%g, %g]", ini->path, e->line,
                             e->key, v, k->min, k->max);
        *(double *)k->dest = d;
        break;
    }
    case TRV_INI_INT: {
        long l = strtol(v, &end, 10);
        if (!*v || *end || errno)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: '%s' must be an integer, not '%s'", ini->path, e->line,
                             e->key, v);
        if (l < k->min || l > k->max)
            return trv_error(ctx, TRV_ERR_DATA, "%s:%ld: '%s' = %s is out of range [%g, %g]", ini->path, e->line,
                             e->key, v, k->min, k->max);
        *(int *)k->dest = (int)l;
        break;
    }
    case TRV_INI_BOOL: {
        int b = choice_index("no|yes|false|true|0|1|off|on", v);
        if (b < 0)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: '%s' must be yes or no, not '%s'", ini->path, e->line,
                             e->key, v);
        *(int *)k->dest = b % 2;
        break;
    }
    case TRV_INI_CHOICE: {
        int c = choice_index(k->choices, v);
        if (c < 0)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: '%s' must be one of %s, not '%s'", ini->path, e->line,
                             e->key, k->choices, v);
        *(int *)k->dest = c;
        break;
    }
    case TRV_INI_STRING: {
        char *copy = strdup(v);
        if (!copy)
            return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
        free(*(char **)k->dest);
        *(char **)k->dest = copy;
        break;
    }
    }
    if (k->given)
        *k->given = 1;
    return TRV_OK;
}

trv_status trv_ini_bind(trv_ctx *ctx, const trv_ini *ini, const trv_ini_key *schema, size_t n)
{
    for (size_t i = 0; i < ini->n; i++) {
        const ini_entry *e = &ini->e[i];
        const trv_ini_key *k = NULL;
        int section_known = 0;
        for (size_t j = 0; j < n; j++) {
            if (strcmp(schema[j].section, e->section) != 0)
                continue;
            section_known = 1;
            if (strcmp(schema[j].key, e->key) == 0)
                k = &schema[j];
        }
        if (!section_known)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: unknown section '[%s]'%s", ini->path,
                             e->section_line ? e->section_line : e->line,
                             e->section, *e->section ? "" : " (keys before any section)");
        if (!k)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s:%ld: unknown key '%s' in [%s]", ini->path, e->line, e->key,
                             e->section);
        trv_status st = bind_one(ctx, ini, e, k);
        if (st)
            return st;
    }
    for (size_t j = 0; j < n; j++) {
        if (!schema[j].required)
            continue;
        int found = 0;
        for (size_t i = 0; i < ini->n && !found; i++)
            found = !strcmp(ini->e[i].section, schema[j].section) && !strcmp(ini->e[i].key, schema[j].key);
        if (!found)
            return trv_error(ctx, TRV_ERR_FORMAT, "%s: missing key '%s' in [%s]", ini->path, schema[j].key,
                             schema[j].section);
    }
    return TRV_OK;
}
