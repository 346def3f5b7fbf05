/* contacts in the formulations (paper 001 section 2.3): the fixed-point iteration on the normal
 * forces, and the contacts' modes with their switches located as events.
 *
 * Normal forces.  A sliding contact's friction μ N depends on its normal force, which depends on
 * the accelerations: the paper's fixed point (eq 28–34) — guess N (the last evaluation's), apply
 * the friction forces, solve the formulation's equations for v̇ and λ, N = −λ of the gap row,
 * repeat until N no longer changes.  Each formulation supplies its solve, which reuses its
 * factorization after the first pass (only the right-hand side moves).
 *
 * Modes and events.  Two root functions per contact:
 *   g0  slipping (coulomb): the slip speed along the segment's direction (planar: sgn·vᵀt;
 *       spatial: v_tᵀd) — falls through zero where the slip stops;
 *       sticking: μ_s N − |F_t| — falls through zero where static friction gives way;
 *       open: the gap (less its value at the opening when that was below zero) — falls through
 *       zero at an impact;
 *   g1  the normal force N (closed) — falls through zero where the bodies would separate;
 *   g2  the distance of the surface parameters from the ends of their ranges — the run stops
 *       where the contact point leaves a surface.
 * Joints with friction (paper 001's closing remark) work the same way along their coordinate:
 * slipping, a friction torque (revolute: μ R r, R the reaction force) or force (translational:
 * μ R, R the reaction's part normal to the axis) against the rate, R from the joint's multipliers
 * (in the same fixed point); sticking, a lock of the coordinate's rate whose multiplier is the
 * friction; one root function each: the rate along the segment's sign, or μ R r − |T|.
 * At an event the contact switches (slip → stick; stick → slip against F_t; closed → open, when a
 * restitution was given, else the run stops; open → closed by Newton's impact law), the rows of
 * the new mode become active, the velocities are projected on them, the formulation re-bases (a
 * new partition) and the dynamics are solved again to check the new modes: a stick that static
 * friction cannot hold slips at once (in the direction it would move), a negative N separates.
 * The integrator then restarts with the new constraint set. */
#include <math.h>
#include <string.h>

#include "../contact/contact_impl.h"
#include "formulations.h"
#include "formulations_msg.h"
#include "mbd/vec3.h"

enum { EV_STICK = 0, EV_SLIP, EV_SEPARATE, EV_IMPACT };

/* count an event of contact c at d->t, and log it while there is room */
static void log_event(mbd_data *d, int c, int kind) {
  d->events[kind]++;
  if (d->nevlog < MBD_EVLOG_MAX) {
    d->evlog[d->nevlog++] = (mbd_contact_event_rec){d->t, c, kind};
  }
}

/* the height of a rebound's flight (m) below which an impact closes the contact instead: the
 * bounces of e > 0 would otherwise shorten without end, and a flight that does not rise clear of
 * the root's offset cannot be followed */
#define CLOSE_APEX (100 * MBD_CONTACT_GAP_EPS)

/* ------------------------------------------------------------------------------------------ */
/* the normal forces: fixed-point iteration                                                    */

#define FP_MAXIT 100
#define FP_RTOL 1e-12

int mbd_contact_dynamics(void *self, mbd_form_solve_fn solve, const mbd_model *m, mbd_data *d,
                         int want_lambda, mbd_error *err) {
  if (m->ncontact == 0 && m->njfric == 0) {
    return solve(self, m, d, want_lambda, 0, err);
  }
  int need = 0;
  for (int c = 0; c < m->ncontact; c++) {
    need |= mbd_contact_needs_n(m, d, c);
  }
  for (int k = 0; k < m->njfric; k++) {
    need |= mbd_jfric_needs_r(m, d, k);
  }
  if (!need) {
    int rc = solve(self, m, d, 1, 0, err);
    for (int c = 0; rc == MBD_OK && c < m->ncontact; c++) {
      mbd_contact_read_forces(m, d, c);
    }
    for (int k = 0; rc == MBD_OK && k < m->njfric; k++) {
      mbd_jfric_read_forces(m, d, k);
    }
    return rc;
  }
  // Q without friction, then: friction for N, solve, N from λ, until N stands
  memcpy(d->Q0, d->Q, (size_t)m->nv * sizeof(double));
  for (int it = 0;; it++) {
    memcpy(d->Q, d->Q0, (size_t)m->nv * sizeof(double));
    mbd_contact_add_friction(m, d);
    int rc = solve(self, m, d, 1, it > 0, err);
    if (rc != MBD_OK) {
      return rc;
    }
    d->contact_iterations++;
    double change = 0, size = 0;
    int worst = 0;
    for (int c = 0; c < m->ncontact; c++) {
      double n0 = d->cstate[c].N;
      mbd_contact_read_forces(m, d, c);
      double dn = fabs(d->cstate[c].N - n0);
      if (dn > change) {
        change = dn;
        worst = c;
      }
      size = fmax(size, fabs(d->cstate[c].N));
    }
    for (int k = 0; k < m->njfric; k++) {
      double r0 = d->jfstate[k].R;
      mbd_jfric_read_forces(m, d, k);
      double dr = fabs(d->jfstate[k].R - r0);
      if (dr > change) {
        change = dr;
        worst = m->ncontact + k;
      }
      size = fmax(size, fabs(d->jfstate[k].R));
    }
    // against the largest force of the solve too: where a normal force falls to zero (the
    // separation its root locates) it carries the round-off of the forces it comes from
    for (int k = 0; k < d->ma; k++) {
      size = fmax(size, fabs(d->lambda[d->active[k]]));
    }
    for (int i = 0; i < m->nv; i++) {
      size = fmax(size, fabs(d->Q0[i]));
    }
    if (change <= FP_RTOL * size || change == 0) {
      // the friction forces of the converged N (the last solve used the previous iterate)
      if (change > 0) {
        memcpy(d->Q, d->Q0, (size_t)m->nv * sizeof(double));
        mbd_contact_add_friction(m, d);
        rc = solve(self, m, d, 1, 1, err);
        for (int c = 0; rc == MBD_OK && c < m->ncontact; c++) {
          mbd_contact_read_forces(m, d, c);
        }
        for (int k = 0; rc == MBD_OK && k < m->njfric; k++) {
          mbd_jfric_read_forces(m, d, k);
        }
        d->contact_iterations++;
      }
      return rc;
    }
    if (it + 1 >= FP_MAXIT || !isfinite(change)) {
      const char *who = worst < m->ncontact ? m->contact[worst].name
                                            : m->joint[m->jfric[worst - m->ncontact].joint].name;
      MBD_FAIL(err, MBD_E_NEWTON, MSG_FORM_CONTACT_FIXED_POINT, who, d->t, FP_MAXIT, change);
      return 1;
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* root functions                                                                              */

int mbd_contact_nroot(const void *self, const mbd_model *m) {
  (void)self;
  return 3 * m->ncontact + m->njfric;
}

/* the tangential part of the relative velocity */
static void slip_velocity(const mbd_contact_state *cs, double *vt) {
  double vn = mbd_dot3(cs->vrel, cs->n);
  for (int i = 0; i < 3; i++) {
    vt[i] = cs->vrel[i] - vn * cs->n[i];
  }
}

int mbd_contact_roots(void *self, const mbd_model *m, const mbd_data *d, double t, double *g,
                      mbd_error *err) {
  (void)self, (void)t, (void)err;
  for (int c = 0; c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    const mbd_contact_state *cs = &d->cstate[c];
    double vt[3];
    slip_velocity(cs, vt);
    double g0 = 1, g1 = 1;
    switch (cs->mode) {
      case MBD_CMODE_SLIP:
        if (ct->friction == MBD_FRICTION_COULOMB) {
          g0 = m->dim == 2 ? cs->sgn * mbd_dot3(vt, cs->t[0]) : mbd_dot3(vt, cs->dir);
        }
        g1 = cs->N;
        break;
      case MBD_CMODE_STICK:
        g0 = ct->mu_s * cs->N - sqrt(mbd_dot3(cs->Ft, cs->Ft));
        g1 = cs->N;
        break;
      default:  // open
        g0 = cs->gap - cs->gap_off;
        break;
    }
    g[3 * c] = g0;
    g[3 * c + 1] = g1;
    // the parameters' distance from the ends of their ranges (1 when unbounded)
    double g2 = 1;
    const double *u = d->q + ct->qadr;
    for (int side = 0; side < 2; side++) {
      const mbd_surface *sf = &m->surface[side ? ct->s2 : ct->s1];
      for (int k = 0; k < sf->np && k < 2 && !sf->implicit; k++) {
        g2 = fmin(g2, fmin(u[k] - sf->lo[k], sf->hi[k] - u[k]));
      }
      u += sf->np;
    }
    g[3 * c + 2] = g2;
  }
  // frictional joints: the rate along the slip's sign, or the lock's margin μ R r − |T|
  for (int k = 0; k < m->njfric; k++) {
    const mbd_jfric_state *js = &d->jfstate[k];
    const mbd_joint_friction *jf = &m->jfric[k];
    double r = mbd_joint_friction_arm(m, jf->joint, jf->radius);
    g[3 * m->ncontact + k] =
        js->mode == MBD_CMODE_SLIP ? js->sgn * js->rate : jf->mu * js->R * r - fabs(js->T);
  }
  return MBD_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* events                                                                                      */

/* start a slip of contact c against its sticking friction force (the way it gives) */
static void start_slip(const mbd_model *m, mbd_data *d, int c) {
  mbd_contact_state *cs = &d->cstate[c];
  double f = sqrt(mbd_dot3(cs->Ft, cs->Ft));
  for (int i = 0; i < 3; i++) {
    cs->dir[i] = f > 0 ? -cs->Ft[i] / f : 0;
  }
  cs->sgn = mbd_dot3(cs->dir, cs->t[0]) < 0 ? -1 : 1;
  cs->mode = MBD_CMODE_SLIP;
  (void)m;
}

/* a closed contact's regime from its slip velocity: sticking (coulomb) when the slip speed is
 * zero within 1e-9 of the bodies' speeds, else sliding along it */
static void close_contact(const mbd_model *m, mbd_data *d, int c) {
  const mbd_contact *ct = &m->contact[c];
  mbd_contact_state *cs = &d->cstate[c];
  double vt[3];
  slip_velocity(cs, vt);
  double speed = sqrt(mbd_dot3(vt, vt)), scale = mbd_contact_speed_scale(m, d, c);
  if (ct->friction == MBD_FRICTION_COULOMB && speed <= 1e-9 * scale) {
    cs->mode = MBD_CMODE_STICK;
    return;
  }
  cs->mode = MBD_CMODE_SLIP;
  for (int i = 0; i < 3; i++) {
    cs->dir[i] = speed > 0 ? vt[i] / speed : 0;
  }
  cs->sgn = mbd_dot3(vt, cs->t[0]) < 0 ? -1 : 1;
}

/* the offset of an open contact's gap root below the gap at its opening: MBD_CONTACT_GAP_EPS
 * for bodies within a metre of the origin, growing with their distance from it as the gap's
 * rounding does (its search converges to 1e-13 of the positions' size), so that a scene moved far
 * from the origin (or written in millimetres) does not find impacts in the gap's round-off */
static double gap_eps(const mbd_model *m, const mbd_data *d, int c) {
  const double *r1 = d->pose[m->contact[c].b1].r, *r2 = d->pose[m->contact[c].b2].r;
  double scale =
      1 + fmax(fabs(r1[0]) + fabs(r1[1]) + fabs(r1[2]), fabs(r2[0]) + fabs(r2[1]) + fabs(r2[2]));
  return MBD_CONTACT_GAP_EPS * scale;
}

/* open contact c (N fell to zero): with a restitution it flies, else the run stops */
static int separate(const mbd_model *m, mbd_data *d, int c, mbd_error *err) {
  const mbd_contact *ct = &m->contact[c];
  mbd_contact_state *cs = &d->cstate[c];
  if (!ct->has_e) {
    return MBD_FAIL(err, MBD_E_STATE, MSG_FORM_CONTACT_SEPARATE, ct->name, d->t, cs->N);
  }
  cs->mode = MBD_CMODE_OPEN;
  cs->gap_off = fmin(cs->gap, 0) - gap_eps(m, d, c);
  cs->N = 0;
  memset(cs->Ft, 0, sizeof cs->Ft);
  log_event(d, c, EV_SEPARATE);
  return MBD_OK;
}

/* the contact point of contact c left one of its surfaces: the run stops, naming it */
static int range_stop(const mbd_model *m, const mbd_data *d, int c, mbd_error *err) {
  const mbd_contact *ct = &m->contact[c];
  const double *u = d->q + ct->qadr;
  int best_side = 0, best_k = 0;
  double best = INFINITY;
  for (int side = 0; side < 2; side++) {
    const mbd_surface *sf = &m->surface[side ? ct->s2 : ct->s1];
    for (int k = 0; k < sf->np && k < 2 && !sf->implicit; k++) {
      double g = fmin(u[k] - sf->lo[k], sf->hi[k] - u[k]);
      if (g < best) {
        best = g;
        best_side = side;
        best_k = k;
      }
    }
    u += sf->np;
  }
  const mbd_surface *sf = &m->surface[best_side ? ct->s2 : ct->s1];
  double uk = d->q[ct->qadr + (best_side ? m->surface[ct->s1].np : 0) + best_k];
  return MBD_FAIL(err, MBD_E_STATE, MSG_FORM_CONTACT_RANGE, ct->name, d->t, sf->name,
                  mbd_surface_param_name(sf, best_k), uk, sf->lo[best_k], sf->hi[best_k]);
}

/* rows of the current modes active, constraints evaluated, velocities projected on them */
static int refresh_rows(const mbd_model *m, mbd_data *d, mbd_error *err) {
  mbd_contact_activate(m, d);
  int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc == MBD_OK) {
    rc = mbd_velocity_analysis(m, d, err);
  }
  if (rc == MBD_OK) {
    // γ and the contact rates at the projected velocities
    rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  }
  return rc;
}

/* the acceleration of open contact c's gap at the evaluated dynamics of d: its row enabled for a
 * moment, Φ̈ = Φq v̇ − γ */
static int gap_acceleration(const mbd_model *m, mbd_data *d, int c, double *a, mbd_error *err) {
  mbd_contact_state *cs = &d->cstate[c];
  int r = m->contact[c].row0;
  cs->mode = MBD_CMODE_SLIP;
  int rc = mbd_constraints_eval(m, d, 0, err);
  *a = -d->gamma[r];
  for (int j = 0; j < m->nv; j++) {
    *a += MBD_AT(d->phiq, m->mrow, r, j) * d->vdot[j];
  }
  cs->mode = MBD_CMODE_OPEN;
  if (rc == MBD_OK) {
    rc = mbd_constraints_eval(m, d, 0, err);
  }
  return rc;
}

/* the impulse problem of contact c's impact, the contact's rows of mode active: the velocity
 * jump Δv with M Δv = Φqᵀ μ (no other impulse: d->Q zeroed), the gap row's relative normal
 * velocity going from vn to −e vn and every other active row keeping its rate (Φq Δv = −Φq v:
 * rolling rows' slip goes to zero).  Δv in d->vdot, impulses −λ in d->lambda; the solve's
 * factorization stands for mbd_dynamics_augmented_again */
static int impulse_solve(const mbd_model *m, mbd_data *d, int c, int mode, double vn,
                         mbd_error *err) {
  const mbd_contact *ct = &m->contact[c];
  d->cstate[c].mode = mode;
  mbd_contact_activate(m, d);
  int rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  if (rc != MBD_OK) {
    return rc;
  }
  for (int k = 0; k < d->ma; k++) {
    int r = d->active[k];
    double s = d->phit_a[k];
    for (int j = 0; j < m->nv; j++) {
      s += MBD_AT(d->phiq_a, d->ma, k, j) * d->v[j];
    }
    d->gamma_a[k] = r == ct->row0 ? -(1 + ct->e) * vn : -s;
  }
  memset(d->Q, 0, (size_t)m->nv * sizeof(double));
  mbd_stage_touch(d, MBD_STAGE_VELOCITY);  // (Q is no force but the impulse's right side)
  rc = mbd_dynamics_augmented(m, d, d->gamma_a, err);
  return rc == MBD_OK
             ? MBD_OK
             : (rc < 0 ? rc
                       : MBD_FAIL(err, MBD_E_SINGULAR, MSG_FORM_CONTACT_IMPACT, ct->name, d->t));
}

/* Newton's impact law with Coulomb friction on the impulses (an algebraic impact model): the
 * normal relative velocity reverses to −e vn; with friction (mu > 0, a slip at impact) the
 * tangential impulse first stops the slip — accepted when |P_t| ≤ mu_static P_n — else it is
 * mu P_n against the slip at the impact's start (no reversal within the impact).  Energy: the
 * sticking impulse never adds any; the sliding one may, for bodies whose contact point couples
 * normal and tangential motion strongly (Kane's paradox of Newton's law with friction). */
static int impact(const mbd_model *m, mbd_data *d, int c, double *rebound, mbd_error *err) {
  const mbd_contact *ct = &m->contact[c];
  mbd_contact_state *cs = &d->cstate[c];
  cs->mode = MBD_CMODE_SLIP;
  mbd_contact_activate(m, d);
  int rc = mbd_eval_to(m, d, MBD_STAGE_FORCES, err);
  if (rc != MBD_OK) {
    return rc;
  }
  memcpy(d->Q0, d->Q, (size_t)m->nv * sizeof(double));
  double vn = mbd_dot3(cs->vrel, cs->n), vt[3];
  for (int i = 0; i < 3; i++) {
    vt[i] = cs->vrel[i] - vn * cs->n[i];
  }
  double speed = sqrt(mbd_dot3(vt, vt));
  int friction = ct->friction != MBD_FRICTION_NONE && ct->mu > 0 &&
                 speed > 1e-12 * mbd_contact_speed_scale(m, d, c);
  int done = 0;
  if (friction) {
    // sticking: the rolling rows too, their slip to zero; P_n = −λ_gap, P_t = −Σ λ_k t_k (a
    // sticking impulse the other constraints do not allow — a singular system — slides)
    mbd_error stick_err;
    mbd_error_clear(&stick_err);
    if (impulse_solve(m, d, c, MBD_CMODE_STICK, vn, &stick_err) == MBD_OK) {
      double pn = -d->lambda[ct->row0], pt[3] = {0, 0, 0};
      for (int k = 0; k < ct->nroll; k++) {
        for (int i = 0; i < 3; i++) {
          pt[i] -= d->lambda[ct->row0 + 1 + k] * cs->t[k][i];
        }
      }
      done = sqrt(mbd_dot3(pt, pt)) <= ct->mu_s * pn;
    }
  }
  if (!done) {
    // the normal impulse alone (Δv0, λ0); with friction also the response (Δv1, λ1) to a unit
    // of P_n acting as −mu ŝ at the contact point with no velocity targets, and P_n from
    // P = −(λ0 + P λ1) of the gap row: P = −λ0 / (1 + λ1)
    rc = impulse_solve(m, d, c, MBD_CMODE_SLIP, vn, err);
    if (rc == MBD_OK && friction) {
      double *dv0 = d->tmp_n, l0 = d->lambda[ct->row0];
      memcpy(dv0, d->vdot, (size_t)m->nv * sizeof(double));
      double f2[3], f1[3];
      for (int i = 0; i < 3; i++) {
        f2[i] = -ct->mu * vt[i] / speed;
        f1[i] = -f2[i];
      }
      mbd_forces_add_point(m, d, ct->b2, cs->s2, f2);
      mbd_forces_add_point(m, d, ct->b1, cs->s1, f1);
      memset(d->gamma_a, 0, (size_t)d->ma * sizeof(double));
      rc = mbd_dynamics_augmented_again(m, d, d->gamma_a, err);
      if (rc < 0) {
        return rc;
      }
      double l1 = d->lambda[ct->row0], p = -l0 / (1 + l1);
      if (!(p >= 0) || !isfinite(p)) {
        p = 0;  // no compressive normal impulse with this friction (a jam): the frictionless one
      }
      for (int j = 0; j < m->nv; j++) {
        d->vdot[j] = dv0[j] + p * d->vdot[j];
      }
    }
  }
  memcpy(d->Q, d->Q0, (size_t)m->nv * sizeof(double));
  if (rc != MBD_OK) {
    return rc;
  }
  for (int j = 0; j < m->nv; j++) {
    d->v[j] += d->vdot[j];
  }
  cs->mode = MBD_CMODE_SLIP;
  mbd_contact_activate(m, d);
  log_event(d, c, EV_IMPACT);
  *rebound = -ct->e * vn;
  rc = mbd_eval_to(m, d, MBD_STAGE_VELOCITY, err);
  return rc;
}

int mbd_contact_event(const mbd_form_ops *ops, void *self, mbd_form_solve_fn solve,
                      mbd_form_rebase_fn rebase, const mbd_model *m, mbd_data *d, double t,
                      double *y, const int *found, mbd_error *err) {
  int changed = 0, rc = MBD_OK, ny0 = ops->ny(self, m);
  // per contact, then per frictional joint: the mode before, a slip stopped, a contact that left
  int nitem = m->ncontact + m->njfric;
  int *prev = d->evwork, *stopped = prev + nitem, *flying = stopped + nitem;
  d->t = t;
  mbd_stage_touch(d, MBD_STAGE_NONE);
  for (int i = 0; i < nitem; i++) {
    prev[i] = i < m->ncontact ? d->cstate[i].mode : d->jfstate[i - m->ncontact].mode;
    stopped[i] = flying[i] = 0;
  }
  // frictional joints: a slip that stops, a lock that gives way
  for (int k = 0; found && k < m->njfric; k++) {
    mbd_jfric_state *js = &d->jfstate[k];
    if (found[3 * m->ncontact + k] >= 0) {
      continue;
    }
    if (js->mode == MBD_CMODE_SLIP) {
      js->mode = MBD_CMODE_STICK;
      stopped[m->ncontact + k] = 1;
    } else {
      js->mode = MBD_CMODE_SLIP;
      js->sgn = js->T > 0 ? -1 : 1;
    }
    changed = 1;
  }
  // the switches found at t
  for (int c = 0; found && c < m->ncontact; c++) {
    const mbd_contact *ct = &m->contact[c];
    mbd_contact_state *cs = &d->cstate[c];
    int g0 = found[3 * c], g1 = found[3 * c + 1];
    if (found[3 * c + 2] < 0) {
      return range_stop(m, d, c, err);
    }
    if (g1 < 0 && cs->mode != MBD_CMODE_OPEN) {
      rc = separate(m, d, c, err);
      if (rc < 0) {
        return rc;
      }
      changed = 1;
      continue;
    }
    if (g0 >= 0) {
      continue;  // a function leaving zero upwards (just after a switch): nothing happens
    }
    if (cs->mode == MBD_CMODE_SLIP && ct->friction == MBD_FRICTION_COULOMB) {
      double vt[3];
      slip_velocity(cs, vt);
      double along = mbd_dot3(vt, cs->dir), across = 0;
      for (int i = 0; i < 3; i++) {
        across += (vt[i] - along * cs->dir[i]) * (vt[i] - along * cs->dir[i]);
      }
      double scale = mbd_contact_speed_scale(m, d, c);
      if (m->dim == 3 && sqrt(across) > 1e-6 * scale) {
        // spatial: the slip turned rather than stopped: follow its direction
        for (int i = 0; i < 3; i++) {
          cs->dir[i] = vt[i] / sqrt(mbd_dot3(vt, vt));
        }
        continue;
      }
      cs->mode = MBD_CMODE_STICK;
      stopped[c] = 1;
      changed = 1;
    } else if (cs->mode == MBD_CMODE_STICK) {
      start_slip(m, d, c);
      changed = 1;
    } else if (cs->mode == MBD_CMODE_OPEN) {
      // the gap fell below its offset while the surfaces neither approach nor accelerate
      // towards each other: no impact, the flight goes on from here.  After a separation where
      // N fell smoothly to zero the gap starts flat (ġ = g̈ = 0), and the integration's error on
      // the positions dips it below any fixed offset; an impact there would reverse a velocity
      // of round-off size, close the contact, find N < 0 and separate again without end
      double vn = mbd_dot3(cs->vrel, cs->n);
      if (vn >= -1e-9 * mbd_contact_speed_scale(m, d, c)) {
        double an = 0;
        rc = gap_acceleration(m, d, c, &an, err);
        if (rc < 0) {
          return rc;
        }
        if (an >= 0) {
          cs->gap_off = fmin(cs->gap, 0) - gap_eps(m, d, c);
          changed = 1;
          continue;
        }
      }
      double rebound = 0;
      rc = impact(m, d, c, &rebound, err);
      if (rc < 0) {
        return rc;
      }
      if (ct->e == 0 || rebound <= 0) {
        close_contact(m, d, c);
      } else {
        // a new flight (closed again below if it would not rise clear)
        cs->mode = MBD_CMODE_OPEN;
        cs->gap_off = fmin(cs->gap, 0) - gap_eps(m, d, c);
        flying[c] = 1;
      }
      changed = 1;
    }
  }
  if (!changed && found) {
    return 0;
  }
  // the new modes: their rows, the projected velocities, the dynamics; then check them
  for (int pass = 0; pass < 2 * nitem + 2; pass++) {
    rc = refresh_rows(m, d, err);
    if (rc == MBD_OK && rebase) {
      rc = rebase(self, m, d, err);
    }
    if (rc == MBD_OK) {
      rc = mbd_eval_to(m, d, MBD_STAGE_FORCES, err);
    }
    if (rc == MBD_OK) {
      rc = mbd_contact_dynamics(self, solve, m, d, 1, err);
    }
    if (rc != MBD_OK) {
      return rc < 0 ? rc : (err->code < 0 ? err->code : MBD_E_NEWTON);
    }
    int again = 0;
    for (int c = 0; c < m->ncontact; c++) {
      mbd_contact_state *cs = &d->cstate[c];
      const mbd_contact *ct = &m->contact[c];
      if (cs->mode == MBD_CMODE_OPEN) {
        continue;
      }
      if (cs->N < 0) {
        rc = separate(m, d, c, err);
        if (rc < 0) {
          return rc;
        }
        again = 1;
      } else if (cs->mode == MBD_CMODE_STICK && sqrt(mbd_dot3(cs->Ft, cs->Ft)) > ct->mu_s * cs->N) {
        start_slip(m, d, c);
        again = 1;
      }
    }
    // a joint's lock its friction cannot hold slips against the lock's torque (force)
    for (int k = 0; k < m->njfric; k++) {
      mbd_jfric_state *js = &d->jfstate[k];
      const mbd_joint_friction *jf = &m->jfric[k];
      double r = mbd_joint_friction_arm(m, jf->joint, jf->radius);
      if (js->mode == MBD_CMODE_STICK && fabs(js->T) > jf->mu * js->R * r) {
        js->mode = MBD_CMODE_SLIP;
        js->sgn = js->T > 0 ? -1 : 1;
        again = 1;
      }
    }
    // a rebound too low to follow (its apex v²/2|a| below CLOSE_APEX) closes the contact
    for (int c = 0; c < m->ncontact && c < 64; c++) {
      mbd_contact_state *cs = &d->cstate[c];
      if (!flying[c] || cs->mode != MBD_CMODE_OPEN) {
        continue;
      }
      double an = 0, vn = mbd_dot3(cs->vrel, cs->n);
      rc = gap_acceleration(m, d, c, &an, err);
      if (rc < 0) {
        return rc;
      }
      flying[c] = 0;
      if (an < 0 && vn * vn / (2 * -an) < CLOSE_APEX) {
        close_contact(m, d, c);
        again = 1;
      }
    }
    changed |= again;
    if (!again) {
      break;
    }
  }
  // count the switches: a slip that stopped (and may have turned back), a stick that gave way,
  // a contact closed by an impact that sticks
  for (int c = 0; c < nitem && c < 64; c++) {
    int now = c < m->ncontact ? d->cstate[c].mode : d->jfstate[c - m->ncontact].mode;
    if (stopped[c]) {
      log_event(d, c, EV_STICK);
      if (now == MBD_CMODE_SLIP) {
        log_event(d, c, EV_SLIP);
      }
    } else if (prev[c] == MBD_CMODE_STICK && now == MBD_CMODE_SLIP) {
      log_event(d, c, EV_SLIP);
    } else if (prev[c] != MBD_CMODE_STICK && now == MBD_CMODE_STICK) {
      log_event(d, c, EV_STICK);
    }
  }
  if (!changed) {
    return 0;
  }
  // the new state into y when its size stands (no reallocation), else the driver re-packs it
  if (y && ops->ny(self, m) == ny0) {
    ops->pack(self, m, d, y);
    return 0;
  }
  return MBD_EVENT_RESIZED;
}
