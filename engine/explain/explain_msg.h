/* mbd — message templates of m:explain (explain/).  One place for the text the user sees. */
#ifndef MBD_EXPLAIN_MSG_H
#define MBD_EXPLAIN_MSG_H

/* an allocation failed */
#define MSG_EXPLAIN_NOMEM "explain: out of memory"
/* the model is not assembled (MBD_E_STATE): model */
#define MSG_EXPLAIN_NOT_ASSEMBLED "explain: model '%s' is not assembled"
/* t outside the recorded span: t, first and last sample times */
#define MSG_EXPLAIN_TIME "explain: t = %g is outside the run (%g .. %g s)"
/* the run lacks a channel the state is read from: channel */
#define MSG_EXPLAIN_CHANNEL "explain: the run has no channel '%s' (is it a run of this model?)"
/* a body kind whose state cannot be read from channels: body */
#define MSG_EXPLAIN_KIND "explain: the state of body '%s' cannot be read from a run"
/* the analyses at the instant failed: the engine's message */
#define MSG_EXPLAIN_STATE "explain: at t = %g: %s"

#endif
