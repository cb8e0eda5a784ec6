/*
 * The run's worker threads for the LiDAR's rays (sim.h, docs/method.md §5):
 * created once with the run, T - 1 workers beside the calling thread.
 *
 * A job is n chunks, each a call fn(arg, c) that writes only its own
 * results. Chunks are claimed one at a time from one 64-bit ticket, the
 * job's generation in the high 32 bits and its next chunk in the low 32:
 * a compare-and-swap hands chunk c to exactly one thread, and a worker
 * that wakes late for a finished job sees another generation and claims
 * nothing. Whichever thread runs takes the next chunk, so a worker the
 * system has descheduled delays the job by at most the chunk it holds.
 * Each chunk's done flag is set under the mutex (with a broadcast) after
 * its call; the caller waits for a chunk by its flag. Nothing depends on
 * which thread cast which chunk.
 */
#include "sim.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define POOL_MAX 64

struct sim_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, done_cv;
    _Atomic uint64_t ticket;     /* generation << 32 | next chunk */
    uint32_t gen;                /* the job's generation (under mu) */
    int n;                       /* its chunks */
    void (*fn)(void *, int);
    void *arg;
    atomic_uchar *done;          /* per chunk: cast */
    int cap;
    int stop, nthreads, nstarted;
    pthread_t th[POOL_MAX];
};

int sim_pool_cores(int requested)
{
    if (requested > 0)
        return requested < POOL_MAX ? requested : POOL_MAX;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 1 ? (int)(n < POOL_MAX ? n : POOL_MAX) : 1;
}

/* The next chunk of generation gen (n chunks), or -1. */
static int claim(sim_pool *p, uint32_t gen, int n)
{
    uint64_t v = atomic_load(&p->ticket);
    for (;;) {
        if ((uint32_t)(v >> 32) != gen || (uint32_t)v >= (uint32_t)n)
            return -1;
        if (atomic_compare_exchange_weak(&p->ticket, &v, v + 1))
            return (int)(uint32_t)v;
    }
}

/* Chunk c cast: its flag, and the waiting caller woken. */
static void finish(sim_pool *p, int c)
{
    pthread_mutex_lock(&p->mu);
    atomic_store(&p->done[c], 1);
    pthread_cond_broadcast(&p->done_cv);
    pthread_mutex_unlock(&p->mu);
}

static void *worker(void *arg)
{
    sim_pool *p = arg;
    uint32_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->gen == seen)
            pthread_cond_wait(&p->work, &p->mu);
        if (p->stop)
            break;
        seen = p->gen;
        int n = p->n;
        void (*fn)(void *, int) = p->fn;
        void *a = p->arg;
        pthread_mutex_unlock(&p->mu);
        for (int c; (c = claim(p, seen, n)) >= 0;) {
            fn(a, c);
            finish(p, c);
        }
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

trv_status sim_pool_new(trv_ctx *ctx, int threads, sim_pool **out)
{
    *out = NULL;
    sim_pool *p = calloc(1, sizeof *p);
    if (!p)
        return trv_error(ctx, TRV_ERR_NOMEM, "out of memory");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->nthreads = 1;
    int want = sim_pool_cores(threads);
    for (int k = 0; k < want - 1; k++) /* a worker that cannot start: one thread fewer */
        if (pthread_create(&p->th[p->nstarted], NULL, worker, p) == 0)
            p->nstarted++;
    p->nthreads = 1 + p->nstarted;
    *out = p;
    return TRV_OK;
}

void sim_pool_free(sim_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    for (int k = 0; k < p->nstarted; k++)
        pthread_join(p->th[k], NULL);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done_cv);
    pthread_mutex_destroy(&p->mu);
    free(p->done);
    free(p);
}

int sim_pool_threads(const sim_pool *p) { return p ? p->nthreads : 1; }

int sim_pool_start(sim_pool *p, void (*fn)(void *, int), void *arg, int n)
{
    pthread_mutex_lock(&p->mu);
    if (n > p->cap) {
        atomic_uchar *d = realloc(p->done, (size_t)n * sizeof *d);
        if (!d) {
            pthread_mutex_unlock(&p->mu);
            return 0;
        }
        p->done = d, p->cap = n;
    }
    for (int c = 0; c < n; c++)
        atomic_init(&p->done[c], 0);
    p->gen++;
    p->n = n, p->fn = fn, p->arg = arg;
    atomic_store(&p->ticket, (uint64_t)p->gen << 32);
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
    return 1;
}

int sim_pool_claim(sim_pool *p)
{
    return claim(p, p->gen, p->n); /* gen and n: this thread's own writes */
}

void sim_pool_cast(sim_pool *p, int c)
{
    p->fn(p->arg, c);
    atomic_store(&p->done[c], 1);
}

void sim_pool_wait(sim_pool *p, int c)
{
    if (atomic_load(&p->done[c]))
        return;
    pthread_mutex_lock(&p->mu);
    while (!atomic_load(&p->done[c]))
        pthread_cond_wait(&p->done_cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

int sim_pool_done(sim_pool *p, int c) { return atomic_load(&p->done[c]); }
