/* mbd — ODE integrators, private part: message templates (one place, matched by the tests). */
#ifndef MBD_INTEGRATORS_IMPL_H
#define MBD_INTEGRATORS_IMPL_H

/* option and argument checks (MBD_E_INPUT); every message starts with the function name */
#define MSG_ODE_NULL "mbd_ode_solve: %s is NULL"
#define MSG_ODE_N "mbd_ode_solve: n = %d, the state needs at least one component"
#define MSG_ODE_NTOUT "mbd_ode_solve: ntout = %d, at least one output time is needed"
#define MSG_ODE_KIND "mbd_ode_solve: unknown integrator kind %d (adams, bdf, rk45, rk4)"
#define MSG_ODE_RTOL "mbd_ode_solve: %s: rtol = %g must be > 0 and finite"
#define MSG_ODE_ATOL "mbd_ode_solve: %s: atol = %g must be > 0 and finite"
#define MSG_ODE_STEP_RK4 "mbd_ode_solve: rk4: step = %g must be > 0 and finite"
#define MSG_ODE_STEP "mbd_ode_solve: %s: initial step = %g must be >= 0 and finite"
#define MSG_ODE_MAX_STEP "mbd_ode_solve: %s: max_step = %g must be >= 0 and finite"
#define MSG_ODE_MAX_STEPS "mbd_ode_solve: max_steps = %ld must be >= 0"
#define MSG_ODE_T0 "mbd_ode_solve: t0 = %g is not finite"
#define MSG_ODE_TOUT0 "mbd_ode_solve: tout[0] = %.17g is before t0 = %.17g"
#define MSG_ODE_TOUT "mbd_ode_solve: tout[%d] = %.17g is not after tout[%d] = %.17g"
#define MSG_ODE_TOUT_NAN "mbd_ode_solve: tout[%d] is not finite"

/* solver failures (MBD_E_INTEGRATOR): solver, time reached, last step, flag name, SUNDIALS' text */
#define MSG_ODE_FAIL "%s: failed at t = %.17g (last step %.6g): %s: %s"
#define MSG_ODE_SETUP "%s: setup failed in %s: %s: %s"
#define MSG_ODE_TOO_MANY "%s: max_steps = %ld reached at t = %.17g (last step %.6g): %s"
#define MSG_ODE_RK4_RECOV \
  "rk4: right-hand side returned %d (retry) at t = %.17g; a fixed step cannot be retried"

/* solver names used in the messages */
#define ODE_NAME_ADAMS "cvode adams"
#define ODE_NAME_BDF "cvode bdf"
#define ODE_NAME_RK45 "arkode erkstep dormand-prince 5(4)"

#endif
