/* mbd — message templates of the generated equations (codegen/).  One place for the text the
 * user sees; the tests match these templates, not copies of the text. */
#ifndef MBD_CODEGEN_MSG_H
#define MBD_CODEGEN_MSG_H

/* an allocation failed: who ("derivation", "tape", "compiled code") */
#define MSG_CODE_NOMEM "relative: out of memory for the %s"
/* the symbolic engine failed during the derivation: its message */
#define MSG_CODE_SYM "relative: the symbolic derivation failed: %s"
/* warning: compiled code was asked for and the tape runs instead: the reason */
#define MSG_CODE_FALLBACK "code = 'compiled' runs the tape instead: %s"
/* the cache folder cannot hold the model's source: the path, the reason */
#define MSG_CODE_CACHE_WRITE "cannot write %s: %s"

#endif
