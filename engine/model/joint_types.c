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
#include "tree_impl.h"
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
/* the rows: each type's table of rows (below) over the vectors of its joint frame              */

/* the vectors of the joint frame that the rows read, as mbd_vec (value, rate, Jacobian, h) */
typedef struct jframe {
  mbd_vec v[MBD_JV_N];
} jframe;

static void jframe_make(const mbd_model *m, const mbd_data *d, const mbd_joint *j, unsigned want,
                        jframe *f) {
  if (want & (1u << MBD_JV_D)) {
    mbd_vec_sep(m, d, j->body1, j->at1, j->body2, j->at2, &f->v[MBD_JV_D]);
  }
  if (want & (1u << MBD_JV_N1)) {
    double nb[3] = {-j->axis1[1], j->axis1[0], 0};  // R90 axis1
    mbd_vec_axis(m, d, j->body1, 0, nb, &f->v[MBD_JV_N1]);
  }
  if (want & (1u << MBD_JV_F1)) {
    mbd_vec_axis(m, d, j->body1, 0, j->ref1, &f->v[MBD_JV_F1]);
  }
  if (want & (1u << MBD_JV_G1)) {
    double g[3];
    mbd_cross3(j->axis1, j->ref1, g);
    mbd_vec_axis(m, d, j->body1, 0, g, &f->v[MBD_JV_G1]);
  }
  if (want & (1u << MBD_JV_H1)) {
    mbd_vec_axis(m, d, j->body1, 0, j->axis1, &f->v[MBD_JV_H1]);
  }
  if (want & (1u << MBD_JV_F2)) {
    mbd_vec_axis(m, d, j->body2, 1, j->ref2, &f->v[MBD_JV_F2]);
  }
  if (want & (1u << MBD_JV_H2)) {
    mbd_vec_axis(m, d, j->body2, 1, j->axis2, &f->v[MBD_JV_H2]);
  }
}

/* the relative angle row θ2 − θ1 − c: J = [0 0 −1 | 0 0 1], γ = 0 */
static void angle_row2(const mbd_data *d, const mbd_joint *j, double c, mbd_row *o) {
  const mbd_pose *p1 = &d->pose[j->body1], *p2 = &d->pose[j->body2];
  memset(o, 0, sizeof *o);
  o->val = p2->p[0] - p1->p[0] - c;
  o->rate = p2->pd[0] - p1->pd[0];
  o->J[2] = -1;
  o->J[MBD_NY_MAX + 2] = 1;
}

/* the spatial angle about axis1 from ref1 to ref2, atan2(g1ᵀf2, f1ᵀf2), continued from memo */
static void angle_row3(const jframe *f, double memo, mbd_row *o) {
  mbd_row c, s;
  mbd_row_dot(&f->v[MBD_JV_F1], &f->v[MBD_JV_F2], &c);
  mbd_row_dot(&f->v[MBD_JV_G1], &f->v[MBD_JV_F2], &s);
  mbd_row_angle(&c, &s, memo, o);
}

/* the vectors a row reads */
static unsigned row_wants(const mbd_joint_row_def *r) {
  switch (r->op) {
    case MBD_JR_COMP:
      return 1u << MBD_JV_D;
    case MBD_JR_DOT:
      return (1u << r->a) | (1u << r->b);
    case MBD_JR_SCREW:
      return (1u << MBD_JV_D) | (1u << MBD_JV_F1) | (1u << MBD_JV_G1) | (1u << MBD_JV_H1) |
             (1u << MBD_JV_F2);
    default:
      return 0;
  }
}

void mbd_joint_rows(const mbd_model *m, const mbd_data *d, int ji, mbd_row *rows) {
  const mbd_joint *j = &m->joint[ji];
  const mbd_joint_row_def *def = mbd_joint_types[j->type].row[MBD_DIMX(m)];
  int nrow = mbd_joint_types[j->type].nrow[MBD_DIMX(m)];
  unsigned want = 0;
  for (int k = 0; k < nrow; k++) {
    want |= row_wants(&def[k]);
  }
  jframe f;
  jframe_make(m, d, j, want, &f);
  for (int k = 0; k < nrow; k++) {
    const mbd_joint_row_def *r = &def[k];
    switch (r->op) {
      case MBD_JR_COMP:
        mbd_row_comp(&f.v[MBD_JV_D], r->b, &rows[k]);
        break;
      case MBD_JR_DOT:
        mbd_row_dot(&f.v[r->a], &f.v[r->b], &rows[k]);
        break;
      case MBD_JR_LOCK:
        angle_row2(d, j, j->angle0, &rows[k]);
        break;
      case MBD_JR_SCREW: {
        // h1ᵀd − disp0 − lead θ: the advance along the axis follows the turn about it
        mbd_row s, th;
        mbd_row_dot(&f.v[MBD_JV_H1], &f.v[MBD_JV_D], &s);
        angle_row3(&f, d->angle_memo[ji], &th);
        mbd_row *o = &rows[k];
        o->val = s.val - j->disp0 - j->lead * th.val;
        o->rate = s.rate - j->lead * th.rate;
        o->h = s.h - j->lead * th.h;
        for (int i = 0; i < MBD_NLOC; i++) {
          o->J[i] = s.J[i] - j->lead * th.J[i];
        }
        break;
      }
      default:
        break;
    }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* the table                                                                                   */

enum { A = MBD_COORD_ANGLE, D = MBD_COORD_DISPLACEMENT, X = MBD_COORD_X, Y = MBD_COORD_Y };

/* rows: the coincident points (three components of d, planar two), axes kept parallel or
 * perpendicular (dot products of the joint frame's vectors), d kept along or across an axis */
#define COMP(i) {MBD_JR_COMP, 0, (i)}
#define DOT(a, b) {MBD_JR_DOT, MBD_JV_##a, MBD_JV_##b}
#define LOCK {MBD_JR_LOCK, 0, 0}
#define SCREW {MBD_JR_SCREW, 0, 0}

const mbd_joint_type_desc mbd_joint_types[MBD_JOINT_NTYPES] = {
    /* coincident points; spatial: and axis2 ∥ axis1 */
    [MBD_JOINT_REVOLUTE] = {.name = "revolute",
                            .nrow = {2, 5},
                            .need_axis = {0, 1},
                            .ncoord = {1, 1},
                            .coord = {{A}, {A}},
                            .drive_coord = {0, 0},
                            .angle_coord = {0, 0},
                            .friction_coord = {0, 0},
                            .tree = {{1, MBD_TROT_AXIS, 0, 0, -1, {0}, {"angle"}}, {1, MBD_TROT_AXIS, 0, 0, -1, {0}, {"angle"}}},
                            .row = {{COMP(0), COMP(1)},
                                    {COMP(0), COMP(1), COMP(2), DOT(F1, H2), DOT(G1, H2)}}},
    /* planar: n1ᵀd = 0 and the locked relative angle; spatial: the cylindrical's rows and no
     * rotation about the axis */
    [MBD_JOINT_TRANSLATIONAL] = {.name = "translational",
                                 .nrow = {2, 5},
                                 .need_axis = {1, 1},
                                 .ncoord = {1, 1},
                                 .coord = {{D}, {D}},
                                 .drive_coord = {0, 0},
                                 .angle_coord = {-1, -1},
                                 .friction_coord = {0, 0},
                                 .tree = {{1, MBD_TROT_NONE, -1, 1, 0, {MBD_TDIR_AXIS}, {"displacement"}},
                                          {1, MBD_TROT_NONE, -1, 1, 0, {MBD_TDIR_AXIS}, {"displacement"}}},
                                 .row = {{DOT(N1, D), LOCK},
                                         {DOT(F1, H2), DOT(G1, H2), DOT(F1, D), DOT(G1, D),
                                          DOT(G1, F2)}}},
    /* coincident points and the relative frame of the given poses */
    [MBD_JOINT_FIXED] = {.name = "fixed",
                         .nrow = {3, 6},
                         .need_axis = {0, 0},
                         .drive_coord = {-1, -1},
                         .angle_coord = {-1, -1},
                         .friction_coord = {-1, -1},
                         .tree = {{0, MBD_TROT_NONE, -1, 0, -1, {0}, {0}}, {0, MBD_TROT_NONE, -1, 0, -1, {0}, {0}}},
                         .row = {{COMP(0), COMP(1), LOCK},
                                 {COMP(0), COMP(1), COMP(2), DOT(F1, H2), DOT(G1, H2),
                                  DOT(G1, F2)}}},
    /* coincident points */
    [MBD_JOINT_SPHERICAL] = {.name = "spherical",
                             .nrow = {0, 3},
                             .need_axis = {0, 0},
                             .drive_coord = {-1, -1},
                             .angle_coord = {-1, -1},
                             .friction_coord = {-1, -1},
                             .tree = {{0}, {4, MBD_TROT_EULER, 0, 0, -1, {0}, {"e0", "e1", "e2", "e3"}}},
                             .row = {{{0}}, {COMP(0), COMP(1), COMP(2)}}},
    /* coincident points and axis1 ⟂ axis2 */
    [MBD_JOINT_UNIVERSAL] = {.name = "universal",
                             .nrow = {0, 4},
                             .need_axis = {0, 1},
                             .drive_coord = {-1, -1},
                             .angle_coord = {-1, -1},
                             .friction_coord = {-1, -1},
                             .tree = {{0}, {2, MBD_TROT_TWO_AXES, 0, 0, -1, {0}, {"angle1", "angle2"}}},
                             .row = {{{0}}, {COMP(0), COMP(1), COMP(2), DOT(H1, H2)}}},
    /* axis2 ∥ axis1, separation ∥ axis1 */
    [MBD_JOINT_CYLINDRICAL] = {.name = "cylindrical",
                               .nrow = {0, 4},
                               .need_axis = {0, 1},
                               .ncoord = {0, 2},
                               .coord = {{0}, {A, D}},
                               .drive_coord = {-1, 1},
                               .angle_coord = {-1, 0},
                               .friction_coord = {-1, -1},
                               .tree = {{0}, {2, MBD_TROT_AXIS, 0, 1, 1, {MBD_TDIR_AXIS}, {"angle", "displacement"}}},
                               .row = {{{0}}, {DOT(F1, H2), DOT(G1, H2), DOT(F1, D), DOT(G1, D)}}},
    /* the cylindrical's rows and the advance: displacement = disp0 + pitch θ / 2π */
    [MBD_JOINT_SCREW] = {.name = "screw",
                         .nrow = {0, 5},
                         .need_axis = {0, 1},
                         .ncoord = {0, 2},
                         .coord = {{0}, {A, D}},
                         .follows = {0, 1 << 1},
                         .drive_coord = {-1, 0},
                         .angle_coord = {-1, 0},
                         .friction_coord = {-1, -1},
                         .tree = {{0}, {1, MBD_TROT_AXIS, 0, 1, 0, {MBD_TDIR_LEAD}, {"angle"}}},
                         .row = {{{0}},
                                 {DOT(F1, H2), DOT(G1, H2), DOT(F1, D), DOT(G1, D), SCREW}}},
    /* axis2 ∥ axis1 and the separation in the plane normal to axis1 */
    [MBD_JOINT_PLANAR] = {.name = "planar",
                          .nrow = {0, 3},
                          .need_axis = {0, 1},
                          .ncoord = {0, 3},
                          .coord = {{0}, {X, Y, A}},
                          .drive_coord = {-1, -1},
                          .angle_coord = {-1, 2},
                          .friction_coord = {-1, -1},
                          .tree = {{0},
                                   {3, MBD_TROT_AXIS, 2, 2, 0, {MBD_TDIR_REF1, MBD_TDIR_G1}, {"x", "y", "angle"}}},
                          .row = {{{0}}, {DOT(F1, H2), DOT(G1, H2), DOT(H1, D)}}},
};

#undef COMP
#undef DOT
#undef LOCK
#undef SCREW

int mbd_joint_friction_kind(const mbd_model *m, int ji) {
  const mbd_joint_type_desc *jt = &mbd_joint_types[m->joint[ji].type];
  int c = jt->friction_coord[MBD_DIMX(m)];
  return c < 0 ? -1 : jt->coord[MBD_DIMX(m)][c];
}

double mbd_joint_friction_arm(const mbd_model *m, int ji, double radius) {
  return mbd_joint_friction_kind(m, ji) == MBD_COORD_ANGLE ? radius : 1;
}

const char *mbd_model_joint_coord_name(const mbd_model *m, int joint, int k) {
  if (joint < 0 || joint >= m->njoint) {
    return NULL;
  }
  const mbd_joint_type_desc *jt = &mbd_joint_types[m->joint[joint].type];
  return k >= 0 && k < jt->ncoord[MBD_DIMX(m)] ? mbd_coord_name(jt->coord[MBD_DIMX(m)][k]) : NULL;
}

const char *mbd_model_joint_friction_coord(const mbd_model *m, int joint) {
  int kind = joint >= 0 && joint < m->njoint ? mbd_joint_friction_kind(m, joint) : -1;
  return kind < 0 ? NULL : mbd_coord_name(kind);
}

const char *mbd_coord_name(int kind) {
  static const char *const name[MBD_COORD_NKINDS] = {[MBD_COORD_ANGLE] = "angle",
                                                     [MBD_COORD_DISPLACEMENT] = "displacement",
                                                     [MBD_COORD_X] = "x",
                                                     [MBD_COORD_Y] = "y"};
  return kind >= 0 && kind < MBD_COORD_NKINDS ? name[kind] : "?";
}

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
  } else if (kind == MBD_COORD_X || kind == MBD_COORD_Y) {
    // a planar joint's displacement in its plane: along f1 (x) or g1 (y)
    jframe f;
    int e = kind == MBD_COORD_X ? MBD_JV_F1 : MBD_JV_G1;
    jframe_make(m, d, j, (1u << MBD_JV_D) | (1u << e), &f);
    mbd_row_dot(&f.v[e], &f.v[MBD_JV_D], o);
  } else {
    // the angle about axis1 from ref1 to ref2: atan2(g1ᵀf2, f1ᵀf2), continuous through the memo
    jframe f;
    jframe_make(m, d, j, (1u << MBD_JV_F1) | (1u << MBD_JV_G1) | (1u << MBD_JV_F2), &f);
    angle_row3(&f, d->angle_memo[ji], o);
  }
}

double mbd_joint_angle_value(const mbd_model *m, const mbd_data *d, int ji) {
  const mbd_joint *j = &m->joint[ji];
  if (m->tree && m->tree->joint_tj[ji] >= 0) {
    // a tree joint's angle is its coordinate (from its value at assembly): exact, whatever the
    // joint turned since the last evaluation
    const mbd_tree_joint *tj = &m->tree->tj[m->tree->joint_tj[ji]];
    return tj->coord0[mbd_joint_types[j->type].angle_coord[1]] + d->q[tj->qadr + tj->rot];
  }
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
      // revolute, cylindrical, translational, screw, planar: ref1 ⟂ axis1 (a planar joint's
      // given one kept); ref2 ⟂ axis2 chosen along ref1 in the given poses, so that the relative
      // angle is zero there
      if (!(j->type == MBD_JOINT_PLANAR && mbd_dot3(j->ref1, j->ref1) > 0.5)) {
        perpendicular(j->axis1, j->ref1);
      }
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
      if (j->type == MBD_JOINT_SCREW) {
        // the advance counts from the given poses: displacement disp0 at angle 0
        const double *r1 = m->body[j->body1].q0, *r2 = m->body[j->body2].q0;
        double A1s[3], A2s[3], h1[3], sep[3];
        mbd_mat3_vec(A1, j->at1, A1s);
        mbd_mat3_vec(A2, j->at2, A2s);
        mbd_mat3_vec(A1, j->axis1, h1);
        for (int i = 0; i < 3; i++) {
          sep[i] = r2[i] + A2s[i] - r1[i] - A1s[i];
        }
        j->disp0 = mbd_dot3(h1, sep);
      }
      return MBD_OK;
    }
  }
}
