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
/* a closed loop's compiled source without one of its two functions: their names */
#define MSG_CODE_SPLIT "the compiled source lacks %s or %s"
/* export_c: a drive (a function of time the program does not have): the joint */
#define MSG_CODE_EXPORT_DRIVE                                                                   \
  "export_c: the drive on joint '%s' is a function the exported program does not have (export " \
  "the model without drives)"
/* export_c: a force given as a function: "force" or "torque", the body */
#define MSG_CODE_EXPORT_FORCE \
  "export_c: the %s on body '%s' is a function the exported program does not have"
/* export_c: a rotational spring on a cut joint: the joint */
#define MSG_CODE_EXPORT_RSPRING                                                                   \
  "export_c: the rotational spring on joint '%s' acts on a cut joint's angle (keep the joint in " \
  "the tree with cut = {...})"
/* export_c: bad options */
#define MSG_CODE_EXPORT_OPTS \
  "export_c: needs dir, t_end > 0, rtol and atol > 0, and the solver augmented or baumgarte"
/* the cache folder cannot hold the model's source: the path, the reason */
#define MSG_CODE_CACHE_WRITE "cannot write %s: %s"

#endif
