/* mbd — message templates of the linear algebra (linalg/).  One place for the text the user
 * sees; the tests match these templates, not copies of the text. */
#ifndef MBD_LINALG_MSG_H
#define MBD_LINALG_MSG_H

/* a workspace could not be allocated: its largest rows, columns */
#define MSG_LINALG_NOMEM "linear algebra workspace %d x %d: out of memory"
/* KLU refused a pattern: rows, columns, its status */
#define MSG_LINALG_KLU "sparse LU of a %d x %d matrix: KLU failed with status %d"
/* UMFPACK failed: rows, columns, its status */
#define MSG_LINALG_UMFPACK "sparse LU of a %d x %d matrix: UMFPACK failed with status %d"

#endif
