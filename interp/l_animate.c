/* run:animate { file, title, trace, shapes, every } (DSL.md "Running"): one self-contained HTML
 * page that replays a run in 3-D.  The page template (viewer/dist/viewer.html: three.js and the
 * viewer's script, built from viewer/src and embedded at build time) has one marker, @MBD_DATA@,
 * where the run's data goes as JSON:
 *
 *   { format = "mbd-animation", version = 1, title, dim, gravity[3], manifest {key: value},
 *     t[nsample],
 *     bodies[ {name, mass, inertia[9], points[[x,y,z]...] (joint, spring, force and traced
 *              points in the body frame), shape (given, else null), x[], y[], z[] (spatial),
 *              theta[] (planar) | e0[] e1[] e2[] e3[] (spatial)} ],
 *     ground {points[[x,y,z]...]},
 *     joints[ {name, type, body1, body2 (index into bodies, -1 = ground), at1, at2, axis1, axis2}
 * ], springs[ {name, body1, body2, at1, at2} ], traces[ {body, at} ], points[ {name, x[], y[], z[]}
 * ]   (channels <name>.px .py [.pz]: contact points), flex[ {name, nodes[ {x[], y[], z[]} ]} ]
 * (channels <name>.node<N>.x .y .z) }
 *
 * Numbers are written with 7 significant digits (a millionth of the model's size on screen), a
 * non-finite one as null.  Every argument is checked before the file is opened, so an error
 * raised here never leaves a file half written or open. */
#include "l_animate.h"

#include <errno.h>
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_model.h"
#include "l_run.h"
#include "l_util.h"
#include "mbd/describe.h"
#include "mbd/fileout.h"
#include "mbd/manifest.h"

/* the page template, embedded by viewer/CMakeLists.txt */
extern const unsigned char mbd_viewer_page[];
extern const size_t mbd_viewer_page_len;

#define MARKER "@MBD_DATA@"
#define MAX_TRACES 64

/* a given shape of a body: box {lx, ly, lz}, sphere r, cylinder {r, h} along axis */
typedef struct shape {
  int kind;       /* 0 none, 1 box, 2 sphere, 3 cylinder */
  double v[3];    /* box sizes; sphere radius; cylinder radius and length */
  double axis[3]; /* cylinder axis in the body frame */
} shape;

typedef struct trace {
  int body;     /* model body index ≥ 1 */
  double at[3]; /* point in the body frame */
} trace;

/* everything the page needs from Lua, read before the file is opened */
typedef struct anim {
  const mbd_model *m;
  const mbd_run *r;
  const char *file, *title;
  int every;     /* sample stride */
  shape *shapes; /* nbody entries (index = model body) */
  trace traces[MAX_TRACES];
  int ntrace;
  int *bmap;  /* nbody: model body → index in the page's bodies, −1 */
  int *bchan; /* nbody × 7 channels: x y z theta|e0 e1 e2 e3 (−1 absent) */
} anim;

/* ------------------------------------------------------------------------------------------ */
/* JSON output                                                                                 */

typedef struct out {
  FILE *f;
  int bad; /* a write failed */
} out;

static void put(out *o, const char *s) {
  if (!o->bad && fputs(s, o->f) < 0) {
    o->bad = 1;
  }
}

static void putnum(out *o, double v) {
  char buf[40];
  if (isfinite(v)) {
    snprintf(buf, sizeof buf, "%.7g", v);
    put(o, buf);
  } else {
    put(o, "null");
  }
}

static void putint(out *o, long v) {
  char buf[24];
  snprintf(buf, sizeof buf, "%ld", v);
  put(o, buf);
}

/* a JSON string; '<' and '>' as \u escapes so the text can never close the <script> element */
static void putstr(out *o, const char *s) {
  put(o, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c && !o->bad; c++) {
    char buf[8];
    if (*c == '"' || *c == '\\') {
      snprintf(buf, sizeof buf, "\\%c", *c);
    } else if (*c < 0x20 || *c == '<' || *c == '>' || *c == '&') {
      snprintf(buf, sizeof buf, "\\u%04x", *c);
    } else {
      buf[0] = (char)*c;
      buf[1] = 0;
    }
    put(o, buf);
  }
  put(o, "\"");
}

static void putvec(out *o, const double *v, int n) {
  put(o, "[");
  for (int i = 0; i < n; i++) {
    if (i) {
      put(o, ",");
    }
    putnum(o, v[i]);
  }
  put(o, "]");
}

/* the samples of channel c (every a->every-th, and the last), or null when c < 0 */
static void putchannel(out *o, const anim *a, int c) {
  if (c < 0) {
    put(o, "null");
    return;
  }
  int n = mbd_run_nsample(a->r);
  put(o, "[");
  int first = 1;
  for (int i = 0; i < n; i++) {
    if (i % a->every != 0 && i != n - 1) {
      continue;
    }
    if (!first) {
      put(o, ",");
    }
    first = 0;
    putnum(o, mbd_run_sample(a->r, c, i));
  }
  put(o, "]");
}

/* channel "<prefix>.<suffix>", −1 when the run has none */
static int chan(const mbd_run *r, const char *prefix, const char *suffix) {
  char name[256];
  snprintf(name, sizeof name, "%s.%s", prefix, suffix);
  return mbd_run_find(r, name);
}

/* ------------------------------------------------------------------------------------------ */
/* the data                                                                                    */

/* the points body b carries (joints, springs, forces, traces), as a JSON list */
static void putpoints(out *o, const anim *a, int b) {
  const mbd_model *m = a->m;
  int first = 1;
  put(o, "[");
#define POINT(v)       \
  do {                 \
    if (!first) {      \
      put(o, ",");     \
    }                  \
    first = 0;         \
    putvec(o, (v), 3); \
  } while (0)
  for (int j = 0; j < mbd_model_njoint(m); j++) {
    mbd_joint_desc jd;
    mbd_model_describe_joint(m, j, &jd);
    if (jd.body1 == b) {
      POINT(jd.at1);
    }
    if (jd.body2 == b) {
      POINT(jd.at2);
    }
  }
  for (int s = 0; s < mbd_model_nspring(m); s++) {
    mbd_spring_desc sd;
    mbd_model_describe_spring(m, s, &sd);
    if (sd.body1 == b) {
      POINT(sd.at1);
    }
    if (sd.body2 == b) {
      POINT(sd.at2);
    }
  }
  for (int f = 0; f < mbd_model_nforce(m); f++) {
    mbd_force_desc fd;
    mbd_model_describe_force(m, f, &fd);
    if (!fd.torque && fd.body == b) {
      POINT(fd.at);
    }
  }
  for (int k = 0; k < a->ntrace; k++) {
    if (a->traces[k].body == b) {
      POINT(a->traces[k].at);
    }
  }
#undef POINT
  put(o, "]");
}

static void putshape(out *o, const shape *s) {
  static const char *const kinds[] = {"", "box", "sphere", "cylinder"};
  if (s->kind == 0) {
    put(o, "null");
    return;
  }
  put(o, "{\"kind\":");
  putstr(o, kinds[s->kind]);
  if (s->kind == 1) {
    put(o, ",\"size\":");
    putvec(o, s->v, 3);
  } else if (s->kind == 2) {
    put(o, ",\"radius\":");
    putnum(o, s->v[0]);
  } else {
    put(o, ",\"radius\":");
    putnum(o, s->v[0]);
    put(o, ",\"length\":");
    putnum(o, s->v[1]);
    put(o, ",\"axis\":");
    putvec(o, s->axis, 3);
  }
  put(o, ",\"center\":[0,0,0]}");
}

/* channels of the form "<name>.px", "<name>.py" [, "<name>.pz"]: points to mark */
static void putpoints_channels(out *o, const anim *a) {
  const mbd_run *r = a->r;
  int first = 1;
  put(o, "[");
  for (int c = 0; c < mbd_run_nchannel(r); c++) {
    const char *name = mbd_run_channel_name(r, c);
    size_t n = strlen(name);
    if (n < 4 || strcmp(name + n - 3, ".px") != 0) {
      continue;
    }
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%.*s", (int)(n - 3), name);
    int cy = chan(r, prefix, "py"), cz = chan(r, prefix, "pz");
    if (cy < 0) {
      continue;
    }
    put(o, first ? "" : ",");
    first = 0;
    put(o, "{\"name\":");
    putstr(o, prefix);
    put(o, ",\"x\":");
    putchannel(o, a, c);
    put(o, ",\"y\":");
    putchannel(o, a, cy);
    put(o, ",\"z\":");
    putchannel(o, a, cz);
    put(o, "}");
  }
  put(o, "]");
}

/* channels "<name>.node<N>.x" (.y, .z): a flexible body's nodes, in the order of N */
static void putflex(out *o, const anim *a) {
  const mbd_run *r = a->r;
  int first = 1;
  put(o, "[");
  for (int c = 0; c < mbd_run_nchannel(r); c++) {
    const char *name = mbd_run_channel_name(r, c);
    const char *node = strstr(name, ".node1.x");
    if (!node || node[8] != 0) {
      continue;  // one entry per body, found at its first node
    }
    char prefix[128];
    snprintf(prefix, sizeof prefix, "%.*s", (int)(node - name), name);
    put(o, first ? "" : ",");
    first = 0;
    put(o, "{\"name\":");
    putstr(o, prefix);
    put(o, ",\"nodes\":[");
    for (int k = 1;; k++) {
      char nx[48];
      snprintf(nx, sizeof nx, "node%d.x", k);
      int cx = chan(r, prefix, nx);
      if (cx < 0) {
        break;
      }
      nx[strlen(nx) - 1] = 'y';
      int cy = chan(r, prefix, nx);
      nx[strlen(nx) - 1] = 'z';
      int cz = chan(r, prefix, nx);
      put(o, k > 1 ? ",{\"x\":" : "{\"x\":");
      putchannel(o, a, cx);
      put(o, ",\"y\":");
      putchannel(o, a, cy);
      put(o, ",\"z\":");
      putchannel(o, a, cz);
      put(o, "}");
    }
    put(o, "]}");
  }
  put(o, "]");
}

static void putdata(out *o, const anim *a) {
  const mbd_model *m = a->m;
  const mbd_run *r = a->r;
  int dim = mbd_model_dim(m);
  put(o, "{\"format\":\"mbd-animation\",\"version\":1,\"title\":");
  putstr(o, a->title ? a->title : mbd_model_name(m));
  put(o, ",\"dim\":");
  putint(o, dim);
  // gravity: the page puts "up" against it
  double g[3] = {0, 0, 0};
  mbd_model_get_gravity(m, g);
  put(o, ",\"gravity\":");
  putvec(o, g, 3);
  put(o, ",\"manifest\":{");
  for (int i = 0; i < mbd_run_manifest_count(r); i++) {
    put(o, i ? "," : "");
    putstr(o, mbd_run_manifest_key(r, i));
    put(o, ":");
    putstr(o, mbd_run_manifest_value(r, i));
  }
  put(o, "},\"t\":[");
  int n = mbd_run_nsample(r);
  const double *t = mbd_run_times(r);
  int first = 1;
  for (int i = 0; i < n; i++) {
    if (i % a->every != 0 && i != n - 1) {
      continue;
    }
    put(o, first ? "" : ",");
    first = 0;
    putnum(o, t[i]);
  }
  put(o, "],\"bodies\":[");
  static const char *const q2[] = {"x", "y", NULL, "theta", NULL, NULL, NULL};
  static const char *const q3[] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
  first = 1;
  for (int b = 1; b < mbd_model_nbody(m); b++) {
    if (a->bmap[b] < 0) {
      continue;
    }
    mbd_body_desc bd;
    mbd_model_describe_body(m, b, &bd);
    put(o, first ? "{\"name\":" : ",{\"name\":");
    first = 0;
    putstr(o, bd.name);
    put(o, ",\"mass\":");
    putnum(o, bd.mass);
    put(o, ",\"inertia\":");
    putvec(o, bd.inertia, 9);
    put(o, ",\"points\":");
    putpoints(o, a, b);
    put(o, ",\"shape\":");
    putshape(o, &a->shapes[b]);
    for (int k = 0; k < 7; k++) {
      const char *name = dim == 2 ? q2[k] : q3[k];
      if (!name) {
        continue;
      }
      put(o, ",\"");
      put(o, name);  // the channel's suffix is the key
      put(o, "\":");
      putchannel(o, a, a->bchan[7 * b + k]);
    }
    put(o, "}");
  }
  // the ground's points
  put(o, "],\"ground\":{\"points\":");
  putpoints(o, a, 0);
  put(o, "},\"joints\":[");
  for (int j = 0; j < mbd_model_njoint(m); j++) {
    mbd_joint_desc jd;
    mbd_model_describe_joint(m, j, &jd);
    put(o, j ? ",{\"name\":" : "{\"name\":");
    putstr(o, jd.name);
    put(o, ",\"type\":");
    putstr(o, jd.type);
    put(o, ",\"body1\":");
    putint(o, jd.body1 > 0 ? a->bmap[jd.body1] : -1);
    put(o, ",\"body2\":");
    putint(o, jd.body2 > 0 ? a->bmap[jd.body2] : -1);
    put(o, ",\"at1\":");
    putvec(o, jd.at1, 3);
    put(o, ",\"at2\":");
    putvec(o, jd.at2, 3);
    put(o, ",\"axis1\":");
    putvec(o, jd.axis1, 3);
    put(o, ",\"axis2\":");
    putvec(o, jd.axis2, 3);
    put(o, "}");
  }
  put(o, "],\"springs\":[");
  for (int s = 0; s < mbd_model_nspring(m); s++) {
    mbd_spring_desc sd;
    mbd_model_describe_spring(m, s, &sd);
    put(o, s ? ",{\"name\":" : "{\"name\":");
    putstr(o, sd.name);
    put(o, ",\"body1\":");
    putint(o, sd.body1 > 0 ? a->bmap[sd.body1] : -1);
    put(o, ",\"body2\":");
    putint(o, sd.body2 > 0 ? a->bmap[sd.body2] : -1);
    put(o, ",\"at1\":");
    putvec(o, sd.at1, 3);
    put(o, ",\"at2\":");
    putvec(o, sd.at2, 3);
    put(o, "}");
  }
  put(o, "],\"traces\":[");
  for (int k = 0; k < a->ntrace; k++) {
    put(o, k ? ",{\"body\":" : "{\"body\":");
    putint(o, a->bmap[a->traces[k].body]);
    put(o, ",\"at\":");
    putvec(o, a->traces[k].at, 3);
    put(o, "}");
  }
  put(o, "],\"points\":");
  putpoints_channels(o, a);
  put(o, ",\"flex\":");
  putflex(o, a);
  put(o, "}");
}

/* ------------------------------------------------------------------------------------------ */
/* the Lua side                                                                                */

/* a body by name or object, for shapes and traces: its model index ≥ 1 */
static int body_of(lua_State *L, int idx, const mbd_model *m, const char *what) {
  const char *name = NULL;
  if (lua_type(L, idx) == LUA_TSTRING) {
    name = lua_tostring(L, idx);
  } else if (luaL_testudata(L, idx, "mbd.Body")) {
    lua_getfield(L, idx, "name");
    name = lua_tostring(L, -1);
    lua_pop(L, 1);  // the body keeps its name alive
  }
  if (!name) {
    return luaL_error(L, "animate: %s expects a body or a body's name, got %s", what,
                      lx_typename(L, idx));
  }
  int b = mbd_model_find_body(m, name);
  if (b < 1) {
    return luaL_error(L, "animate: %s: no body '%s' in model '%s'", what, name, mbd_model_name(m));
  }
  return b;
}

/* shapes = { <body name> = {box = {lx, ly, lz}} | {sphere = r} | {cylinder = {r, h}, axis} } */
static void read_shapes(lua_State *L, int tidx, anim *a) {
  if (lua_getfield(L, tidx, "shapes") == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1)) {
    luaL_error(L, "animate: field 'shapes' expects a table {body = {box = {..}} ...}, got %s",
               lx_typename(L, -1));
  }
  int sidx = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, sidx)) {
    int b = body_of(L, -2, a->m, "shapes");
    shape *s = &a->shapes[b];
    char what[96];
    snprintf(what, sizeof what, "animate: shapes['%s']", mbd_model_body_name(a->m, b));
    static const char *const fields[] = {"box", "sphere", "cylinder", "axis", NULL};
    lx_check_fields(L, -1, what, fields);
    int vidx = lua_gettop(L);
    if (lx_opt_vec(L, vidx, what, "box", 3, s->v)) {
      s->kind = 1;
    } else if (lx_opt_number(L, vidx, what, "sphere", &s->v[0])) {
      s->kind = 2;
    } else if (lx_opt_vec(L, vidx, what, "cylinder", 2, s->v)) {
      s->kind = 3;
      s->axis[2] = 1;
      lx_opt_vec(L, vidx, what, "axis", 3, s->axis);
    } else {
      luaL_error(L, "%s: give box = {lx, ly, lz}, sphere = r or cylinder = {r, h}", what);
    }
    for (int k = 0; k < (s->kind == 1 ? 3 : s->kind == 2 ? 1 : 2); k++) {
      if (!(s->v[k] > 0)) {
        luaL_error(L, "%s: sizes must be positive", what);
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* trace = { "body" | body | {body = ..., at = {..}}, ... } (or one of them alone) */
static void read_traces(lua_State *L, int tidx, anim *a) {
  int dim = mbd_model_dim(a->m);
  int t = lua_getfield(L, tidx, "trace");
  if (t == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  // one entry given alone: wrap it in a list
  if (t != LUA_TTABLE || lua_getfield(L, -1, "body") != LUA_TNIL) {
    if (t == LUA_TTABLE) {
      lua_pop(L, 1);
    }
    lua_createtable(L, 1, 0);
    lua_insert(L, -2);
    lua_rawseti(L, -2, 1);
  } else {
    lua_pop(L, 1);
  }
  int lidx = lua_gettop(L);
  int n = (int)luaL_len(L, lidx);
  if (n > MAX_TRACES) {
    luaL_error(L, "animate: at most %d traces", MAX_TRACES);
  }
  for (int i = 1; i <= n; i++) {
    lua_geti(L, lidx, i);
    trace *tr = &a->traces[a->ntrace];
    memset(tr, 0, sizeof *tr);
    if (lua_istable(L, -1) && !luaL_testudata(L, -1, "mbd.Body")) {
      static const char *const fields[] = {"body", "at", NULL};
      lx_check_fields(L, -1, "animate: trace", fields);
      lua_getfield(L, -1, "body");
      tr->body = body_of(L, lua_gettop(L), a->m, "trace");
      lua_pop(L, 1);
      lx_opt_vec_dim(L, -1, "animate: trace", "at", dim, dim, tr->at);
    } else {
      tr->body = body_of(L, lua_gettop(L), a->m, "trace");
    }
    a->ntrace++;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* the channels of each body's pose; bodies without them are left out of the page */
static void map_bodies(anim *a) {
  int dim = mbd_model_dim(a->m), k = 0;
  static const char *const q2[] = {"x", "y", NULL, "theta", NULL, NULL, NULL};
  static const char *const q3[] = {"x", "y", "z", "e0", "e1", "e2", "e3"};
  for (int b = 0; b < mbd_model_nbody(a->m); b++) {
    a->bmap[b] = -1;
    int ok = b > 0;
    for (int c = 0; c < 7; c++) {
      const char *s = dim == 2 ? q2[c] : q3[c];
      a->bchan[7 * b + c] = s && b > 0 ? chan(a->r, mbd_model_body_name(a->m, b), s) : -1;
      ok = ok && (!s || a->bchan[7 * b + c] >= 0);
    }
    if (ok) {
      a->bmap[b] = k++;
    }
  }
}

/* run:animate { file, title, trace, shapes, every } -> file */
int l_run_animate(lua_State *L) {
  const mbd_run *r = l_run_check(L, 1);
  static const char *const fields[] = {"file", "title", "trace", "shapes", "every", NULL};
  lx_check_fields(L, 2, "animate", fields);
  anim a;
  memset(&a, 0, sizeof a);
  a.r = r;
  a.file = lx_opt_string(L, 2, "animate", "file");
  if (!a.file) {
    return luaL_error(L, "animate: missing field 'file' (the .html page to write)");
  }
  a.title = lx_opt_string(L, 2, "animate", "title");
  a.every = 1;
  lx_opt_int(L, 2, "animate", "every", &a.every);
  if (a.every < 1) {
    return luaL_error(L, "animate: field 'every' must be at least 1, got %d", a.every);
  }
  if (mbd_run_nsample(r) < 1) {
    return luaL_error(L, "animate: the run has no samples");
  }
  // the model that made the run
  if (l_run_push_owner(L, 1) == LUA_TNIL || !luaL_testudata(L, -1, "mbd.Model")) {
    return luaL_error(L,
                      "animate: only runs of an mbd.model can be animated (this run has no "
                      "bodies to draw)");
  }
  a.m = l_model_get(L, -1);
  int nb = mbd_model_nbody(a.m);
  // GC-owned arrays: an error below leaks nothing
  a.shapes = lua_newuserdatauv(L, sizeof(shape) * (size_t)nb, 0);
  memset(a.shapes, 0, sizeof(shape) * (size_t)nb);
  a.bmap = lua_newuserdatauv(L, sizeof(int) * (size_t)nb, 0);
  a.bchan = lua_newuserdatauv(L, sizeof(int) * 7 * (size_t)nb, 0);
  read_shapes(L, 2, &a);
  read_traces(L, 2, &a);
  map_bodies(&a);

  // the template around its marker
  const char *page = (const char *)mbd_viewer_page;
  const char *mark = strstr(page, MARKER);
  if (!mark) {
    return luaL_error(L, "animate: the embedded page has no data marker (a build error)");
  }
  // the page through the safe door (mbd/fileout.h): whole or not at all, links followed, a FIFO
  // or a device written directly and never replaced
  mbd_out fo;
  mbd_error err;
  mbd_error_clear(&err);
  if (mbd_out_open(&fo, "animate", a.file, 0, &err) != MBD_OK) {
    return luaL_error(L, "%s", err.msg);
  }
  out o = {fo.f, 0};
  size_t head = (size_t)(mark - page);
  if (fwrite(page, 1, head, fo.f) != head) {
    o.bad = 1;
  }
  putdata(&o, &a);
  put(&o, mark + strlen(MARKER));
  if (mbd_out_commit(&fo, &err) != MBD_OK) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_pushstring(L, a.file);
  return 1;
}
