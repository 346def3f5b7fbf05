/* mbd — message templates of the stability analysis (stability/).  One place for the text the user sees;
 * the tests match these templates, not copies of the text. */
#ifndef MBD_STABILITY_MSG_H
#define MBD_STABILITY_MSG_H

/* stability: an allocation failed */
#define MSG_ANALYSIS_NOMEM "stability: out of memory"
/* stability: a NaN or infinite entry: the matrix, its row and column (1-based) */
#define MSG_ANALYSIS_FINITE "stability: %s(%d, %d) is not a finite number"
/* stability: the eigenvalue computation failed: the status's text */
#define MSG_ANALYSIS_EIG "stability: the eigenvalue computation failed (%s)"

#endif
