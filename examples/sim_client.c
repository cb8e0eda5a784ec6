/* sim_client: a C client of trv-sim --serve (docs/sim-protocol.md), POSIX
 * sockets and the C library only, to copy from.
 *
 *   sim_client PORT
 *       drives the scenario's first vehicle around a square (Ackermann by
 *       steer, skid and Mecanum by yaw rate: 8 s straight, then a quarter
 *       turn, four times), prints its state after each side, asks for its
 *       events and closes the run (trv-sim writes its outputs)
 *   sim_client PORT bench N [SCAN_EVERY]
 *       N requests of one step each, the first vehicle driving straight
 *       on; with SCAN_EVERY, a scan request every SCAN_EVERY-th step;
 *       prints the round-trip times (median, 99th percentile), steps per
 *       second and the bytes of a scan reply, then closes
 *
 * The replies are read as text: one line each, the fields picked by name
 * (a real client would use a JSON parser).
 */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int fd = -1;
static char *reply;             /* the last reply line */
static size_t reply_cap, have;  /* bytes buffered past it */
static char *buf;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "sim_client: %s\n", what);
    exit(1);
}

/* Send one request line, read one reply line into reply. */
static const char *ask(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    line[n++] = '\n';
    for (int off = 0; off < n;) {
        ssize_t w = send(fd, line + off, n - off, 0);
        if (w <= 0)
            die("send failed");
        off += (int)w;
    }
    for (;;) {
        char *nl = have ? memchr(buf, '\n', have) : NULL;
        if (nl) {
            size_t len = (size_t)(nl - buf);
            if (len + 1 > reply_cap && !(reply = realloc(reply, reply_cap = len + 1)))
                die("out of memory");
            memcpy(reply, buf, len);
            reply[len] = '\0';
            memmove(buf, nl + 1, have - len - 1);
            have -= len + 1;
            if (strstr(reply, "\"type\":\"error\""))
                fprintf(stderr, "sim_client: error reply: %s\n", reply);
            return reply;
        }
        if (have == (size_t)4 << 20)
            die("reply too long");
        ssize_t r = recv(fd, buf + have, ((size_t)4 << 20) - have, 0);
        if (r <= 0)
            die("the server closed the connection");
        have += (size_t)r;
    }
}

/* The number after "key": in the reply (NAN if absent). */
static double field(const char *json, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(json, pat);
    return p ? strtod(p + strlen(pat), NULL) : NAN;
}

/* The string after "key": (copied into out). */
static void sfield(const char *json, const char *key, char *out, size_t n)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":\"", key);
    const char *p = strstr(json, pat);
    size_t i = 0;
    if (p)
        for (p += strlen(pat); *p && *p != '"' && i + 1 < n; p++)
            out[i++] = *p;
    out[i] = '\0';
}

static void connect_to(int port)
{
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((unsigned short)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa))
        die("cannot connect");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!(buf = malloc((size_t)4 << 20)))
        die("out of memory");
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(const char *id, long n, long scan_every)
{
    double *rt = malloc(n * sizeof *rt);
    if (!rt)
        die("out of memory");
    ask("{\"type\":\"command\",\"vehicle\":\"%s\",\"v\":2,%s}", id,
        strstr(reply, "\"model\":\"ackermann\"") ? "\"steer\":0" : "\"yaw_rate\":0");
    size_t scan_bytes = 0;
    double t0 = now_s();
    for (long i = 0; i < n; i++) {
        double a = now_s();
        ask("{\"type\":\"step\",\"n\":1}");
        rt[i] = now_s() - a;
        if (scan_every > 0 && (i + 1) % scan_every == 0)
            scan_bytes = strlen(ask("{\"type\":\"scan\",\"vehicle\":\"%s\"}", id));
    }
    double wall = now_s() - t0;
    qsort(rt, n, sizeof *rt, cmp_d);
    printf("steps %ld  wall %.3f s  %.0f steps/s  round trip median %.1f us  p99 %.1f us", n, wall, n / wall,
           rt[n / 2] * 1e6, rt[(long)(n * 0.99)] * 1e6);
    if (scan_every > 0)
        printf("  scan every %ld steps (%zu bytes a reply)", scan_every, scan_bytes);
    printf("\n");
    free(rt);
}

static void square(const char *id)
{
    int ack = strstr(reply, "\"model\":\"ackermann\"") != NULL;
    double steer = field(reply, "max_steer_rad"), L = field(reply, "wheelbase_m"), dt = field(reply, "step_s");
    double v = 2, yaw = ack ? v * tan(steer) / L : 0.5;
    for (int side = 0; side < 4; side++) {
        ask("{\"type\":\"command\",\"vehicle\":\"%s\",\"v\":%g,%s}", id, v, ack ? "\"steer\":0" : "\"yaw_rate\":0");
        ask("{\"type\":\"step\",\"duration_s\":8}");
        if (ack)
            ask("{\"type\":\"command\",\"vehicle\":\"%s\",\"v\":%g,\"steer\":%.17g}", id, v, steer);
        else
            ask("{\"type\":\"command\",\"vehicle\":\"%s\",\"v\":0,\"yaw_rate\":%.17g}", id, yaw);
        ask("{\"type\":\"step\",\"n\":%ld}", lround(M_PI / 2 / yaw / dt));
        const char *s = ask("{\"type\":\"state\",\"vehicle\":\"%s\"}", id);
        printf("t %6.2f s  x %.2f  y %.2f  heading %7.2f deg  v %.2f m/s  limit %.2f m/s\n", field(s, "t"),
               field(s, "x"), field(s, "y"), field(s, "heading") * 180 / M_PI, field(s, "v"),
               field(s, "speed_limit_ms"));
    }
    printf("%s\n", ask("{\"type\":\"events\",\"since\":0}"));
}

int main(int argc, char **argv)
{
    if (argc < 2 || (argc > 2 && (strcmp(argv[2], "bench") || argc < 4)))
        die("usage: sim_client PORT [bench N [SCAN_EVERY]]");
    connect_to(atoi(argv[1]));
    const char *h = ask("{\"type\":\"hello\"}");
    if (field(h, "protocol") != 1)
        die("not protocol 1");
    char id[64];
    sfield(strstr(h, "\"vehicles\":") ? strstr(h, "\"vehicles\":") : h, "id", id, sizeof id);
    if (argc > 2)
        bench(id, atol(argv[3]), argc > 4 ? atol(argv[4]) : 0);
    else
        square(id);
    ask("{\"type\":\"close\"}");
    close(fd);
    free(buf), free(reply);
    return 0;
}
