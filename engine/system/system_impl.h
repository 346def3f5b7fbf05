/* mbd — coordinate-level systems, private part: the system structure shared by system.c
 * (building, symbolic derivation) and system_run.c (the run) */
#ifndef MBD_SYSTEM_IMPL_H
#define MBD_SYSTEM_IMPL_H

#include <stddef.h>

#include "mbd/system.h"

#define SYS_NAME_MAX 64
#define SYS_MAX_WARNINGS 16

enum { FORCE_ZERO, FORCE_CONST, FORCE_SYM, FORCE_FN }; /* how the applied force is given */

/* one constraint: the expression and its symbolic pieces (node ids in the context) */
typedef struct sys_con {
  int holo;            /* 1 holonomic, 0 nonholonomic */
  mbd_sym_id e;        /* h(q, t) or r(q, q̇, t) */
  mbd_sym_id dval;     /* holonomic: ḣ = Σ ∂h/∂q_j q̇_j + ∂h/∂t; nonholonomic: unused (0) */
  mbd_sym_id b;        /* right-hand side of A q̈ = b without stabilization */
  mbd_sym_id *A;       /* n entries of its row of A */
} sys_con;

struct mbd_system {
  char name[SYS_NAME_MAX];
  mbd_sym_ctx *ctx;                 /* not owned */
  int n;                            /* coordinates */
  char (*names)[SYS_NAME_MAX];      /* n coordinate names */
  mbd_sym_id *qv, *qdv, tv;         /* variables: coordinates, velocities, time */
  double *M, *Minv, *Mih;           /* n×n: mass, its inverse, M^(−1/2) (column-major) */
  int force_kind;                   /* FORCE_* */
  double *Fc;                       /* n constant force */
  mbd_sym_id *Fs;                   /* n symbolic force */
  mbd_sys_force_fn ffn;
  void *fud;
  int nc, cc;                       /* constraints and capacity */
  sys_con *con;
  double *q0, *qd0;                 /* n initial state */
  int running;                      /* runs in progress: no change while > 0 (its force function
                                       may try); checked by sys_check_idle */
  int nwarning;
  char warning[SYS_MAX_WARNINGS][256];
};

/* a warning of the last run (printf-style), at most SYS_MAX_WARNINGS */
void mbd_system_warn(mbd_system *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* MBD_OK, or MBD_E_STATE naming the system and what was tried while it runs */
int mbd_system_check_idle(const mbd_system *s, const char *what, mbd_error *err);
/* short infix text of e for messages ("..." when cut) */
void mbd_system_expr_text(mbd_sym_ctx *ctx, mbd_sym_id e, char *buf, size_t cap);

#endif
