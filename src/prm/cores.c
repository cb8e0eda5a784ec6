/* The planner's threads (prm_priv.h): a job per core, each writing only
 * its own results, so that nothing depends on the number of threads or
 * their timing. */
#include "prm_priv.h"

#include <pthread.h>
#include <unistd.h>

int prm_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 1 ? (int)(n < PRM_MAX_THREADS ? n : PRM_MAX_THREADS) : 1;
}

void prm_on_cores(void *(*fn)(void *), void *jobs, size_t size, int nt)
{
    pthread_t th[PRM_MAX_THREADS];
    int started[PRM_MAX_THREADS] = {0};
    for (int i = 1; i < nt; i++)
        started[i] = pthread_create(&th[i], NULL, fn, (char *)jobs + i * size) == 0;
    fn(jobs);
    for (int i = 1; i < nt; i++)
        if (started[i])
            pthread_join(th[i], NULL);
        else
            fn((char *)jobs + i * size); /* a thread that could not start: its job here */
}
