/* joint types: one descriptor per type — its name, rows, required axes, relative coordinates
 * (channels, drives, springs) and its equations — in planar and spatial models.
 *
 * Planar equations (Haug ch. 3; Nikravesh ch. 5): a revolute makes the joint points coincide (2
 * rows); a translational keeps the separation along axis1 (nᵀd = 0, n ⟂ axis1) and locks the
 * relative angle; a fixed joint does both.  Spatial equations (Haug ch. 9 joint library, in Euler
 * parameters): built from the joint frame of each body — f1 = A1 ref1, g1 = A1 (axis1 × ref1),
 * h1 = A1 axis1, f2 = A2 ref2, h2 = A2 axis2 — and the separation d of the joint points. */
#include <math.h>
#include <string.h>

#include "model_impl.h"
#include "model_msg.h"
#include "mbd/vec3.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int normalize3(double *v) {
  double n = sqrt(mbd_dot3(v, v));
  if (!(n > 1e-12)) {
    return -1;
  }
  for (int i = 0; i < 3; i++) {
    v[i] /= n;
  }
  return 0;
}

// a unit vector perpendicular to the unit vector a
static void perpendicular(const double *a, double *p) {
  double t[3] = {1, 0, 0};
  if (fabs(a[0]) > 0.8) {
    t[0] = 0;
    t[1] = 1;
  }
  double d = mbd_dot3(t, a);
  for (int i = 0; i < 3; i++) {
    p[i] = t[i] - d * a[i];
  }
  normalize3(p);
}

/* ------------------------------------------------------------------------------------------ */
/* planar equations                                                                            */

/* the relative angle row θ2 − θ1 − c: J = [0 0 −1 | 0 0 1], γ = 0 */
static void angle_row2(const mbd_data *d, const mbd_joint *j, double c, mbd_row *o) {
  const mbd_pose *p1 = &d->pose[j->body1], *p2 = &d->pose[j->body2];
  memset(o, 0, sizeof *o);
  o->val = p2->p[0] - p1->p[0] - c;
  o->rate = p2->pd[0] - p1->pd[0];
  o->J[2] = -1;
  o->J[MBD_NY_MAX + 2] = 1;
}

/* coincident points: the two components of d */
static void revolute2(const mbd_model *m, const mbd_data *d, const mbd_joint *j, mbd_row *rows) {
  mbd_vec s;
  mbd_vec_sep(m, d, j->body1, j->at1, j->body2, j->at2, &s);
  mbd_row_comp(&s, 0, &rows[0]);
  mbd_row_comp(&s, 1, &rows[1]);
}

/* nᵀd = 0 with n = A1 n', n' = R90 axis1, and the locked relative angle */
static void translational2(const mbd_model *m, const mbd_data *d, const mbd_joint *j,
                           mbd_row *rows) {
  double nb[3] = {-j->axis1[1], j->axis1[0], 0};
  mbd_vec s, n;
  mbd_vec_sep(m, d, j->body1, j->at1, j->body2, j->at2, &s);
  mbd_vec_axis(m, d, j->body1, 0, nb, &n);
  mbd_row_dot(&n, &s, &rows[0]);
  angle_row2(d, j, j->angle0, &rows[1]);
}

static void fixed2(const mbd_model *m, const mbd_data *d, const mbd_joint *j, mbd_row *rows) {
  revolute2(m, d, j, rows);
  angle_row2(d, j, j->angle0, &rows[2]);
}

/* ------------------------------------------------------------------------------------------ */
/* spatial equations                                                                           */

typedef struct jframe {
  mbd_vec d, f1, g1, h1, f2, h2;
} jframe;

enum { JF_D = 1, JF_F1 = 2, JF_G1 = 4, JF_H1 = 8, JF_F2 = 16, JF_H2 = 32 };

static void jframe_make(const mbd_model *m, const mbd_data *d, const mbd_joint *j, int want,
                        jframe *f) {
  if (want & JF_D) {
    mbd_vec_sep(m, d, j->body1, j->at1, j->body2, j->at2, &f->d);
  }
  if (want & JF_F1) {
    mbd_vec_axis(m, d, j->body1, 0, j->ref1, &f->f1);
  }
  if (want & JF_G1) {
    double g[3];
    mbd_cross3(j->axis1, j->ref1, g);
    mbd_vec_axis(m, d, j->body1, 0, g, &f->g1);
  }
  if (want & JF_H1) {
    mbd_vec_axis(m, d, j->body1, 0, j->axis1, &f->h1);
  }
  if (want & JF_F2) {
    mbd_vec_axis(m, d, j->body2, 1, j->ref2, &f->f2);
  }
  if (want & JF_H2) {
    mbd_vec_axis(m, d, j->body2, 1, j->axis2, &f->h2);
  }
}

/* coincident points */
static void spherical3(const mbd_model *m, const mbd_data *d, const mbd_joint *j, mbd_row *rows) {
  jframe f;
  jframe_make(m, d, j, JF_D, &f);
  for (int i = 0; i < 3; i++) {
    mbd_row_comp(&f.d, i, &rows[i]);
  }
}

/* spherical + axis2 ∥ axis1 */
static void revolute3(const mbd_model *m, const mbd_data *d, const mbd_joint *j, mbd_row *rows) {
  jframe f;
  jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2, &f);
  for (int i = 0; i < 3; i++) {
    mbd_row_comp(&f.d, i, &rows[i]);
  }
  mbd_row_dot(&f.f1, &f.h2, &rows[3]);
  mbd_row_dot(&f.g1, &f.h2, &rows[4]);
}

/* spherical + axis1 ⟂ axis2 */
static void universal3(const mbd_model *m, const mbd_data *d, const mbd_joint *j, mbd_row *rows) {
  jframe f;
  jframe_make(m, d, j, JF_D | JF_H1 | JF_H2, &f);
  for (int i = 0; i < 3; i++) {
    mbd_row_comp(&f.d, i, &rows[i]);
  }
  mbd_row_dot(&f.h1, &f.h2, &rows[3]);
}

/* axis2 ∥ axis1, separation ∥ axis1 */
static void cylindrical3(const mbd_model *m, const mbd_data *d, const mbd_joint *j,
                         mbd_row *rows) {
  jframe f;
  jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2, &f);
  mbd_row_dot(&f.f1, &f.h2, &rows[0]);
  mbd_row_dot(&f.g1, &f.h2, &rows[1]);
  mbd_row_dot(&f.f1, &f.d, &rows[2]);
  mbd_row_dot(&f.g1, &f.d, &rows[3]);
}

/* cylindrical + no rotation about the axis */
static void translational3(const mbd_model *m, const mbd_data *d, const mbd_joint *j,
                           mbd_row *rows) {
  jframe f;
  jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2 | JF_F2, &f);
  mbd_row_dot(&f.f1, &f.h2, &rows[0]);
  mbd_row_dot(&f.g1, &f.h2, &rows[1]);
  mbd_row_dot(&f.f1, &f.d, &rows[2]);
  mbd_row_dot(&f.g1, &f.d, &rows[3]);
  mbd_row_dot(&f.g1, &f.f2, &rows[4]);
}

/* spherical + the relative frame of the given poses */
static void fixed3(const mbd_model *m, const mbd_data *d, const mbd_joint *j, mbd_row *rows) {
  jframe f;
  jframe_make(m, d, j, JF_D | JF_F1 | JF_G1 | JF_H2 | JF_F2, &f);
  for (int i = 0; i < 3; i++) {
    mbd_row_comp(&f.d, i, &rows[i]);
  }
  mbd_row_dot(&f.f1, &f.h2, &rows[3]);
  mbd_row_dot(&f.g1, &f.h2, &rows[4]);
  mbd_row_dot(&f.g1, &f.f2, &rows[5]);
}

/* ------------------------------------------------------------------------------------------ */
/* the table                                                                                   */

enum { A = MBD_COORD_ANGLE, D = MBD_COORD_DISPLACEMENT };

const mbd_joint_type_desc mbd_joint_types[MBD_JOINT_NTYPES] = {
    [MBD_JOINT_REVOLUTE] = {.name = "revolute",
                            .nrow = {2, 5},
                            .need_axis = {0, 1},
                            .ncoord = {1, 1},
                            .coord = {{A}, {A}},
                            .drive_coord = {0, 0},
                            .angle_coord = {0, 0},
                            .rows = {revolute2, revolute3}},
    [MBD_JOINT_TRANSLATIONAL] = {.name = "translational",
                                 .nrow = {2, 5},
                                 .need_axis = {1, 1},
                                 .ncoord = {1, 1},
                                 .coord = {{D}, {D}},
                                 .drive_coord = {0, 0},
                                 .angle_coord = {-1, -1},
                                 .rows = {translational2, translational3}},
    [MBD_JOINT_FIXED] = {.name = "fixed",
                         .nrow = {3, 6},
                         .need_axis = {0, 0},
                         .drive_coord = {-1, -1},
                         .angle_coord = {-1, -1},
                         .rows = {fixed2, fixed3}},
    [MBD_JOINT_SPHERICAL] = {.name = "spherical",
                             .nrow = {0, 3},
                             .need_axis = {0, 0},
                             .drive_coord = {-1, -1},
                             .angle_coord = {-1, -1},
                             .rows = {NULL, spherical3}},
    [MBD_JOINT_UNIVERSAL] = {.name = "universal",
                             .nrow = {0, 4},
                             .need_axis = {0, 1},
                             .drive_coord = {-1, -1},
                             .angle_coord = {-1, -1},
                             .rows = {NULL, universal3}},
    [MBD_JOINT_CYLINDRICAL] = {.name = "cylindrical",
                               .nrow = {0, 4},
                               .need_axis = {0, 1},
                               .ncoord = {0, 2},
                               .coord = {{0}, {A, D}},
                               .drive_coord = {-1, 1},
                               .angle_coord = {-1, 0},
                               .rows = {NULL, cylindrical3}},
};

const char *mbd_joint_type_name(int type) {
  return (type >= 0 && type < MBD_JOINT_NTYPES) ? mbd_joint_types[type].name : "unknown";
}

/* ------------------------------------------------------------------------------------------ */
/* relative coordinates                                                                        */

void mbd_joint_coord_row(const mbd_model *m, const mbd_data *d, int ji, int kind, mbd_row *o) {
  const mbd_joint *j = &m->joint[ji];
  if (kind == MBD_COORD_DISPLACEMENT) {
    // s = uᵀd along u = A1 axis1 (both dimensions)
    mbd_vec u, s;
    mbd_vec_sep(m, d, j->body1, j->at1, j->body2, j->at2, &s);
    mbd_vec_axis(m, d, j->body1, 0, j->axis1, &u);
    mbd_row_dot(&u, &s, o);
  } else if (m->dim == 2) {
    angle_row2(d, j, 0, o);
  } else {
    // the angle about axis1 from ref1 to ref2: atan2(g1ᵀf2, f1ᵀf2), continuous through the memo
    jframe f;
    jframe_make(m, d, j, JF_F1 | JF_G1 | JF_F2, &f);
    mbd_row c, s;
    mbd_row_dot(&f.f1, &f.f2, &c);
    mbd_row_dot(&f.g1, &f.f2, &s);
    mbd_row_angle(&c, &s, d->angle_memo[ji], o);
  }
}

double mbd_joint_angle_value(const mbd_model *m, const mbd_data *d, int ji) {
  const mbd_joint *j = &m->joint[ji];
  const double *A1 = d->pose[j->body1].A, *A2 = d->pose[j->body2].A;
  double g[3], f1[3], g1[3], f2[3];
  mbd_cross3(j->axis1, j->ref1, g);
  mbd_mat3_vec(A1, j->ref1, f1);
  mbd_mat3_vec(A1, g, g1);
  mbd_mat3_vec(A2, j->ref2, f2);
  double th = atan2(mbd_dot3(g1, f2), mbd_dot3(f1, f2)), memo = d->angle_memo[ji];
  return memo + remainder(th - memo, 2 * M_PI);
}

/* ------------------------------------------------------------------------------------------ */
/* set-up from the given poses                                                                 */

int mbd_joint_init_axes(const mbd_model *m, mbd_joint *j, mbd_error *err) {
  if (m->dim == 2) {
    // planar locked angle: the relative angle of the poses the user gave
    j->angle0 = m->body[j->body2].q0[2] - m->body[j->body1].q0[2];
    return MBD_OK;
  }
  double A1[9], A2[9];
  mbd_ep_A(m->body[j->body1].q0 + 3, A1);
  mbd_ep_A(m->body[j->body2].q0 + 3, A2);
  switch (j->type) {
    case MBD_JOINT_SPHERICAL:
      return MBD_OK;
    case MBD_JOINT_FIXED: {
      // body1's frame axes z and x, and the same global directions seen from body2 in the
      // given poses: the fixed joint keeps the relative orientation the user gave
      static const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0};
      double gz[3], gx[3];
      memcpy(j->axis1, z, sizeof z);
      memcpy(j->ref1, x, sizeof x);
      mbd_mat3_vec(A1, z, gz);
      mbd_mat3_vec(A1, x, gx);
      mbd_mat3_tvec(A2, gz, j->axis2);
      mbd_mat3_tvec(A2, gx, j->ref2);
      return MBD_OK;
    }
    case MBD_JOINT_UNIVERSAL: {
      // the cross: axis1 (on body1) ⟂ axis2 (on body2); 5 degrees of slack for rough poses
      double h1[3], h2[3];
      mbd_mat3_vec(A1, j->axis1, h1);
      mbd_mat3_vec(A2, j->axis2, h2);
      double c = mbd_dot3(h1, h2);
      if (fabs(c) > sin(5 * M_PI / 180)) {
        return MBD_FAIL(err, MBD_E_INPUT, MSG_MODEL_UNIVERSAL_AXES, j->name,
                        acos(fmax(-1.0, fmin(1.0, c))) * 180 / M_PI);
      }
      perpendicular(j->axis1, j->ref1);
      perpendicular(j->axis2, j->ref2);
      return MBD_OK;
    }
    default: {
      // revolute, cylindrical, translational: ref1 ⟂ axis1; ref2 ⟂ axis2 chosen along ref1 in
      // the given poses, so that the relative angle is zero there
      perpendicular(j->axis1, j->ref1);
      double f1[3], h2[3], v[3];
      mbd_mat3_vec(A1, j->ref1, f1);
      mbd_mat3_vec(A2, j->axis2, h2);
      double c = mbd_dot3(f1, h2);
      for (int i = 0; i < 3; i++) {
        f1[i] -= c * h2[i];
      }
      mbd_mat3_tvec(A2, f1, v);
      if (normalize3(v) == 0) {
        memcpy(j->ref2, v, sizeof v);
      } else {
        perpendicular(j->axis2, j->ref2);
      }
      return MBD_OK;
    }
  }
}
