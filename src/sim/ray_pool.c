/*
 * The run's worker threads for the LiDAR's rays (sim.h, docs/method.md §5):
 * created once with the run, T - 1 workers beside the calling thread.
 *
 * A job is n chunks, each a call fn(job, c, NULL) that writes only chunk
 * c's results into the job's memory. Chunks are claimed one at a time
 * from one 64-bit ticket, the job's generation in the high 32 bits and its
 * next chunk in the low 32: a compare-and-swap hands chunk c to exactly
 * one thread, and a worker that wakes late for a finished job sees another
 * generation and claims nothing. Whichever thread runs takes the next
 * chunk. A chunk's done flag is set under the mutex, and only while its
 * job is the current one. The caller does not wait long for a chunk a
 * worker holds (a worker the system has descheduled may hold it for a
 * time slice): after SIM_POOL_WAIT_US it casts the chunk again into its
 * own buffer, fn(job, c, out), the same pure function giving the same
 * bits, and moves on. The job's memory therefore belongs to the pool, in
 * SIM_POOL_SLOTS slots used in turn: a slot is reused only once no worker
 * is left in the job that last used it.
 */
#include "sim.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define POOL_MAX 64
#define SIM_POOL_SLOTS 4

typedef struct slot {
    void *mem;
    size_t cap;
    int busy;                    /* workers inside the job that last used it */
} slot;

struct sim_pool {
    pthread_mutex_t mu;
    pthread_cond_t work, done_cv;
    _Atomic uint64_t ticket;     /* generation << 32 | next chunk */
    uint32_t gen;                /* the job's generation (under mu) */
    int n, cur;                  /* its chunks, its slot */
    sim_pool_fn fn;
    atomic_uchar *done;          /* per chunk of the current job: cast */
    int cap;
    slot s[SIM_POOL_SLOTS];
    int stop, nthreads, nstarted, wait_us;
    atomic_long by_workers, by_caller, again; /* chunks cast: sim_pool_counts */
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

/* Chunk c of generation gen cast: its flag (if gen is still the job), and
 * the waiting caller woken. */
static void finish(sim_pool *p, uint32_t gen, int c)
{
    pthread_mutex_lock(&p->mu);
    if (p->gen == gen) {
        atomic_store(&p->done[c], 1);
        atomic_fetch_add(&p->by_workers, 1);
        pthread_cond_broadcast(&p->done_cv);
    }
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
        int n = p->n, k = p->cur;
        sim_pool_fn fn = p->fn;
        void *job = p->s[k].mem;
        p->s[k].busy++;
        pthread_mutex_unlock(&p->mu);
        for (int c; (c = claim(p, seen, n)) >= 0;) {
            fn(job, c, NULL);
            finish(p, seen, c);
        }
        pthread_mutex_lock(&p->mu);
        if (--p->s[k].busy == 0)
            pthread_cond_broadcast(&p->done_cv);
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
    p->cur = SIM_POOL_SLOTS - 1;
    p->wait_us = SIM_POOL_WAIT_US;
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
    for (int k = 0; k < SIM_POOL_SLOTS; k++)
        free(p->s[k].mem);
    free(p->done);
    free(p);
}

int sim_pool_threads(const sim_pool *p) { return p ? p->nthreads : 1; }

void *sim_pool_job(sim_pool *p, size_t size, int n)
{
    pthread_mutex_lock(&p->mu);
    int k = (p->cur + 1) % SIM_POOL_SLOTS;
    while (p->s[k].busy) /* a worker still in the job that used it last */
        pthread_cond_wait(&p->done_cv, &p->mu);
    void *mem = NULL;
    if (n > p->cap) {
        atomic_uchar *d = realloc(p->done, (size_t)n * sizeof *d);
        if (d)
            p->done = d, p->cap = n;
    }
    if (n <= p->cap && size > p->s[k].cap) {
        free(p->s[k].mem);
        p->s[k].cap = (p->s[k].mem = malloc(size)) ? size : 0;
    }
    if (n <= p->cap && size <= p->s[k].cap)
        mem = p->s[k].mem;
    pthread_mutex_unlock(&p->mu);
    return mem;
}

void sim_pool_post(sim_pool *p, sim_pool_fn fn, int n)
{
    pthread_mutex_lock(&p->mu);
    p->cur = (p->cur + 1) % SIM_POOL_SLOTS;
    for (int c = 0; c < n; c++)
        atomic_init(&p->done[c], 0);
    p->gen++;
    p->n = n, p->fn = fn;
    atomic_store(&p->ticket, (uint64_t)p->gen << 32);
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->mu);
}

int sim_pool_claim(sim_pool *p)
{
    if (p->wait_us < 0) /* the tests' setting: the caller claims nothing */
        return -1;
    return claim(p, p->gen, p->n); /* gen and n: this thread's own writes */
}

void sim_pool_cast(sim_pool *p, int c, void *out)
{
    p->fn(p->s[p->cur].mem, c, out);
    atomic_fetch_add(out ? &p->again : &p->by_caller, 1);
    if (!out)
        atomic_store(&p->done[c], 1);
}

void sim_pool_set_wait(sim_pool *p, int us) { p->wait_us = us; }

void sim_pool_counts(sim_pool *p, long *by_workers, long *by_caller, long *again)
{
    *by_workers = atomic_load(&p->by_workers);
    *by_caller = atomic_load(&p->by_caller);
    *again = atomic_load(&p->again);
}

int sim_pool_done(sim_pool *p, int c) { return atomic_load(&p->done[c]); }

int sim_pool_wait(sim_pool *p, int c)
{
    if (atomic_load(&p->done[c]) || p->wait_us < 0)
        return atomic_load(&p->done[c]);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += p->wait_us * 1000L;
    if (until.tv_nsec >= 1000000000L)
        until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_mutex_lock(&p->mu);
    int late = 0;
    while (!atomic_load(&p->done[c]) && !late)
        late = pthread_cond_timedwait(&p->done_cv, &p->mu, &until) == ETIMEDOUT;
    pthread_mutex_unlock(&p->mu);
    return atomic_load(&p->done[c]);
}
