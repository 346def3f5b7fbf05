/* mbd — message templates of the analyses (analysis/).  One place for the text the user sees;
 * the tests match these templates, not copies of the text. */
#ifndef MBD_ANALYSIS_MSG_H
#define MBD_ANALYSIS_MSG_H

/* stability: an allocation failed */
#define MSG_ANALYSIS_NOMEM "stability: out of memory"
/* stability: the eigenvalue computation failed: the status's text */
#define MSG_ANALYSIS_EIG "stability: the eigenvalue computation failed (%s)"

#endif
