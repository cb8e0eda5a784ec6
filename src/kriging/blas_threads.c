/* OpenBLAS's worker threads put to rest (krige.h): OpenBLAS starts them
 * from its constructor, when the program loads, and each spins on
 * sched_yield for about 0.1 s of CPU time before it sleeps, whether any
 * BLAS call comes or not. */
#include "krige.h"

/* OpenBLAS's own (exported, not in cblas.h): joins its worker threads; the
 * next call that wants them starts them again (blas_thread_init). Weak: a
 * BLAS without it leaves this a no-op. */
extern void blas_thread_shutdown_(void) __attribute__((weak));

void krg_blas_rest(void)
{
    if (blas_thread_shutdown_)
        blas_thread_shutdown_();
}
