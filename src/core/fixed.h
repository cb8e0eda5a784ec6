/*
 * fixed.h — decimal text of a number with a fixed count of decimals, the
 * bytes printf("%.*f") gives, several times faster: for the bulk writers
 * (trv-terrain --points writes 10 million rows at 10 m).
 *
 * v x 10^d is formed exactly as a double and its error (an fma) and
 * rounded to the nearest integer: where the exact product lies within 1e-6
 * of a half-way point (printf rounds the exact binary value; we leave a
 * margin rather than decide such a tie), where it is 1e15 or more, or v is
 * not finite, the text is printf's own (snprintf). Everywhere else the
 * nearest integer is the one printf's correctly rounded conversion gives,
 * so the bytes are equal.
 */
#ifndef TRV_FIXED_H
#define TRV_FIXED_H

/* Write v with d decimals (0 <= d <= 9) at p, no terminator; returns the
 * end. p needs 32 bytes. */
char *trv_fixed(char *p, double v, int d);
/* Write the decimal text of a non-negative int at p; returns the end. */
char *trv_uint(char *p, unsigned v);

#endif
