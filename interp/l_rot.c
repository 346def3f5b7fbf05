/* Lua binding of mbd.rot: Euler parameters {e0, e1, e2, e3} (e0 the scalar part) for the initial
 * orientation of spatial bodies (DSL.md "Models, bodies, joints").
 *
 *   mbd.rot.axis_angle(axis, angle)      rotation by angle (rad) about axis (any length > 0)
 *   mbd.rot.euler_zyx(yaw, pitch, roll)  R = Rz(yaw) Ry(pitch) Rx(roll)
 *   mbd.rot.compose(p, q)                the rotation q followed by p: A(p∘q) = A(p) A(q)
 *   mbd.rot.rotate(p, v)                 A(p) v
 *   mbd.rot.from_axes(x, y)              the frame whose body x axis points along x and whose
 *                                        body y axis lies along y (made perpendicular to x)
 *
 * Rotations are active and right-handed: axis_angle({0, 0, 1}, math.pi/2) takes x to y. */
#include "l_rot.h"

#include <lauxlib.h>
#include <math.h>

#include "l_msg.h"

/* argument i as n numbers, or an error naming the function and the argument */
static void check_vec(lua_State *L, int i, const char *fn, const char *what, int n, double *out) {
  int ok = lua_type(L, i) == LUA_TTABLE && luaL_len(L, i) == n;
  for (int k = 0; ok && k < n; k++) {
    lua_geti(L, i, k + 1);
    ok = lua_type(L, -1) == LUA_TNUMBER;
    out[k] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  if (!ok) {
    luaL_error(L, LMSG_ROT_MBD_ROT_ARGUMENT_NUMBERS, fn, i, what, n);
  }
  for (int k = 0; k < n; k++) {
    if (!isfinite(out[k])) {
      luaL_error(L, LMSG_ROT_MBD_ROT_ARGUMENT_FINITE, fn, i, what);
    }
  }
}

static int push_vec(lua_State *L, const double *v, int n) {
  lua_createtable(L, n, 0);
  for (int k = 0; k < n; k++) {
    lua_pushnumber(L, v[k]);
    lua_rawseti(L, -2, k + 1);
  }
  return 1;
}

// Hamilton product: A(p∘q) = A(p) A(q)
static void compose(const double *p, const double *q, double *o) {
  o[0] = p[0] * q[0] - p[1] * q[1] - p[2] * q[2] - p[3] * q[3];
  o[1] = p[0] * q[1] + q[0] * p[1] + p[2] * q[3] - p[3] * q[2];
  o[2] = p[0] * q[2] + q[0] * p[2] + p[3] * q[1] - p[1] * q[3];
  o[3] = p[0] * q[3] + q[0] * p[3] + p[1] * q[2] - p[2] * q[1];
}

static void axis_angle(const double *u, double angle, double *p) {
  double s = sin(angle / 2);
  p[0] = cos(angle / 2);
  for (int k = 0; k < 3; k++) {
    p[k + 1] = s * u[k];
  }
}

static int l_rot_axis_angle(lua_State *L) {
  double a[3], p[4];
  check_vec(L, 1, "axis_angle", "axis", 3, a);
  double angle = luaL_checknumber(L, 2);
  double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  if (!(n > 1e-12)) {
    return luaL_error(L, LMSG_ROT_MBD_ROT_AXIS_ANGLE_AXIS);
  }
  for (int k = 0; k < 3; k++) {
    a[k] /= n;
  }
  axis_angle(a, angle, p);
  return push_vec(L, p, 4);
}

static int l_rot_euler_zyx(lua_State *L) {
  static const double z[3] = {0, 0, 1}, y[3] = {0, 1, 0}, x[3] = {1, 0, 0};
  double qz[4], qy[4], qx[4], t[4], p[4];
  axis_angle(z, luaL_checknumber(L, 1), qz);
  axis_angle(y, luaL_checknumber(L, 2), qy);
  axis_angle(x, luaL_checknumber(L, 3), qx);
  compose(qz, qy, t);
  compose(t, qx, p);
  return push_vec(L, p, 4);
}

static int l_rot_compose(lua_State *L) {
  double p[4], q[4], o[4];
  check_vec(L, 1, "compose", "p", 4, p);
  check_vec(L, 2, "compose", "q", 4, q);
  compose(p, q, o);
  return push_vec(L, o, 4);
}

static int l_rot_rotate(lua_State *L) {
  double p[4], v[3], o[3];
  check_vec(L, 1, "rotate", "p", 4, p);
  check_vec(L, 2, "rotate", "v", 3, v);
  double e0 = p[0], e[3] = {p[1], p[2], p[3]};
  double ee = e[0] * e[0] + e[1] * e[1] + e[2] * e[2], ev = e[0] * v[0] + e[1] * v[1] + e[2] * v[2];
  double exv[3] = {e[1] * v[2] - e[2] * v[1], e[2] * v[0] - e[0] * v[2], e[0] * v[1] - e[1] * v[0]};
  // A v = (e0² − eᵀe) v + 2 e (eᵀv) + 2 e0 e × v, for the normalized parameters
  double n2 = e0 * e0 + ee;
  if (!(n2 > 0)) {
    return luaL_error(L, LMSG_ROT_MBD_ROT_ROTATE_EULER);
  }
  for (int k = 0; k < 3; k++) {
    o[k] = ((e0 * e0 - ee) * v[k] + 2 * e[k] * ev + 2 * e0 * exv[k]) / n2;
  }
  return push_vec(L, o, 3);
}

static double norm3(const double *v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

static int l_rot_from_axes(lua_State *L) {
  double x[3], y[3], z[3];
  check_vec(L, 1, "from_axes", "x", 3, x);
  check_vec(L, 2, "from_axes", "y", 3, y);
  double nx = norm3(x);
  if (!(nx > 1e-12)) {
    return luaL_error(L, LMSG_ROT_MBD_ROT_FROM_AXES_X);
  }
  for (int k = 0; k < 3; k++) {
    x[k] /= nx;
  }
  // y made perpendicular to x (Gram–Schmidt), z = x × y
  double d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
  for (int k = 0; k < 3; k++) {
    y[k] -= d * x[k];
  }
  double ny = norm3(y);
  if (!(ny > 1e-9 * (1 + fabs(d)))) {
    return luaL_error(L, LMSG_ROT_MBD_ROT_FROM_AXES_Y);
  }
  for (int k = 0; k < 3; k++) {
    y[k] /= ny;
  }
  z[0] = x[1] * y[2] - x[2] * y[1];
  z[1] = x[2] * y[0] - x[0] * y[2];
  z[2] = x[0] * y[1] - x[1] * y[0];
  // A = [x y z] (columns); Euler parameters by Shepperd's method (largest pivot first)
  double A[3][3] = {{x[0], y[0], z[0]}, {x[1], y[1], z[1]}, {x[2], y[2], z[2]}};
  double tr = A[0][0] + A[1][1] + A[2][2], p[4];
  if (tr >= A[0][0] && tr >= A[1][1] && tr >= A[2][2]) {
    p[0] = 0.5 * sqrt(1 + tr);
    p[1] = (A[2][1] - A[1][2]) / (4 * p[0]);
    p[2] = (A[0][2] - A[2][0]) / (4 * p[0]);
    p[3] = (A[1][0] - A[0][1]) / (4 * p[0]);
  } else {
    int i = (A[0][0] >= A[1][1] && A[0][0] >= A[2][2]) ? 0 : (A[1][1] >= A[2][2] ? 1 : 2);
    int j = (i + 1) % 3, k = (i + 2) % 3;
    double e = 0.5 * sqrt(1 + 2 * A[i][i] - tr);
    p[1 + i] = e;
    p[0] = (A[k][j] - A[j][k]) / (4 * e);
    p[1 + j] = (A[j][i] + A[i][j]) / (4 * e);
    p[1 + k] = (A[k][i] + A[i][k]) / (4 * e);
  }
  return push_vec(L, p, 4);
}

int mbd_open_rot(lua_State *L) {
  static const luaL_Reg fns[] = {{"axis_angle", l_rot_axis_angle},
                                 {"compose", l_rot_compose},
                                 {"euler_zyx", l_rot_euler_zyx},
                                 {"from_axes", l_rot_from_axes},
                                 {"rotate", l_rot_rotate},
                                 {NULL, NULL}};
  luaL_newlib(L, fns);
  return 1;
}
