/* mbd — status codes and error values.
 *
 * Every engine function that can fail returns an int from the list below (0 ok, positive
 * informational, negative error) and, when it fails, fills an mbd_error whose message names the
 * offending object ("joint 'A': bodies are the same").  The engine never prints and never exits. */
#ifndef MBD_STATUS_H
#define MBD_STATUS_H

/* X(name, value, short description) — one list makes the enum and mbd_status_name() */
#define MBD_STATUS_LIST(X)                                                     \
  X(MBD_OK, 0, "ok")                                                           \
  X(MBD_STOP, 1, "stopped by request")                                         \
  X(MBD_RESELECTED, 2, "constraint rows chosen again: rebuild the right-hand side")  \
  X(MBD_ROOT, 3, "a root function crossed zero")                               \
  X(MBD_E_INPUT, -1, "invalid input")                                          \
  X(MBD_E_NOMEM, -2, "out of memory")                                          \
  X(MBD_E_SINGULAR, -3, "singular matrix")                                     \
  X(MBD_E_ASSEMBLY, -4, "assembly failed")                                     \
  X(MBD_E_NEWTON, -5, "Newton iteration did not converge")                     \
  X(MBD_E_NAN, -6, "not a number in the state")                                \
  X(MBD_E_CALLBACK, -7, "user callback failed")                                \
  X(MBD_E_INTEGRATOR, -8, "integrator failure")                                \
  X(MBD_E_STATE, -9, "operation not valid in this state")                      \
  X(MBD_E_IO, -10, "input/output error")                                       \
  X(MBD_E_LAPACK, -11, "LAPACK argument error (a bug)")

typedef enum mbd_status {
#define MBD_STATUS_ENUM(name, value, text) name = value,
  MBD_STATUS_LIST(MBD_STATUS_ENUM)
#undef MBD_STATUS_ENUM
} mbd_status;

/* an error value: code, message naming the object, and where the engine raised it */
typedef struct mbd_error {
  int code;          /* mbd_status; 0 when no error */
  char msg[512];     /* human-readable message, names the object */
  const char *func;  /* engine function that raised it (static string) */
  int line;          /* source line in the engine */
} mbd_error;

/* static name of a status code ("MBD_E_SINGULAR"); "MBD_UNKNOWN" for codes not in the list */
const char *mbd_status_name(int code);

/* short description of a status code ("singular matrix") */
const char *mbd_status_text(int code);

/* record an error; returns code so callers can `return MBD_FAIL(err, MBD_E_INPUT, "...")`.
 * err may be NULL (the error is then only returned).  The message is printf-formatted. */
int mbd_error_set(mbd_error *err, int code, const char *func, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* clear an error value */
void mbd_error_clear(mbd_error *err);

#define MBD_FAIL(err, code, ...) mbd_error_set((err), (code), __func__, __LINE__, __VA_ARGS__)

/* bytes one large structure may take (a run's dense workspaces, its recorder, a symbolic
 * context, a sweep's results): a quarter of the physical memory, or MBD_MAX_WORKSPACE_GB (GB)
 * when that is lower; 0 when neither is known (no limit).  Sizes are checked against it before
 * allocating, so a model or a request too large stops with a message instead of an
 * out-of-memory kill. */
double mbd_memory_limit(void);

#endif
