/* run:animate { file, title, trace, shapes, every } (DSL.md "Running"): one self-contained HTML
 * page that replays a run in 3-D.  The page template (viewer/dist/viewer.html: three.js and the
 * viewer's script, built from viewer/src and embedded at build time) has one marker, @MBD_DATA@,
 * where the run's data goes as JSON:
 *
 *   { format = "mbd-animation", version = 2, title, dim, gravity[3], manifest {key: value},
 *     t[nsample], extent {lo[3], hi[3]} (the run's bounding box: bodies' origins and contact points),
 *     bodies[ {name, role ("body", "flex": a flexible body's frame, "node": one of its nodes),
 *              mass, inertia[9], points[[x,y,z]...] (joint, spring, force and traced points in
 *              the body frame), shape (given, else null), x[], y[], z[] (spatial), theta[]
 *              (planar) | e0[] e1[] e2[] e3[] (spatial)} ],
 *     ground {points[[x,y,z]...]},
 *     joints[ {name, type, body1, body2 (index into bodies, -1 = ground), at1, at2, axis1, axis2} ],
 *     springs[ {name, body1, body2, at1, at2} ], traces[ {body, at} ],
 *     surfaces[ {name, kind, body, inner, at, e1, e2, normal, radius, amplitude, wavelength, range,
 *                closed, line[] and normals[] (planar: flat x,y,z lists, body frame) | mesh {v[],
 *                i[]} (spatial: flat vertex list, body frame, and triangle indices)} ],
 *     contacts[ {name, surface1, surface2, px[] py[] pz[], nx[] ny[] nz[] (normal force on body 2),
 *                fx[] fy[] fz[] (friction force on body 2)} ],
 *     points[ {name, x[], y[], z[]} ] (other channels <name>.px .py [.pz]),
 *     flex[ {name, body, nodes[] (indices into bodies), xyz[] (undeformed nodes, body frame, flat),
 *            elements[] (pairs of indices into nodes, flat: Hermite beam elements)} ] }
 *
 * Surfaces are sampled once, in their body's frame (mbd_surface_draw), inside a window around the
 * run's extent; the page poses them with their body every frame.
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
#include "l_msg.h"
#include "l_run.h"
#include "l_util.h"
#include "mbd/contact.h"
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
  double lo[3], hi[3]; /* the run's extent: bodies' origins and contact points over the samples */
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

/* a number with 5 significant digits (sampled meshes: a hundred-thousandth of their size) */
static void putnum5(out *o, double v) {
  char buf[40];
  if (isfinite(v)) {
    snprintf(buf, sizeof buf, "%.5g", v);
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

/* a flat list of n doubles (digits: 7 or 5) */
static void putflat(out *o, const double *v, size_t n, int digits) {
  put(o, "[");
  for (size_t i = 0; i < n; i++) {
    if (i) {
      put(o, ",");
    }
    if (digits == 5) {
      putnum5(o, v[i]);
    } else {
      putnum(o, v[i]);
    }
  }
  put(o, "]");
}

/* the run's extent: the bodies' origins and the contact points over (up to 400 of) the samples,
 * and the ground's points */
static void extent(anim *a) {
  const mbd_run *r = a->r;
  int n = mbd_run_nsample(r), step = n > 400 ? n / 400 : 1;
  for (int k = 0; k < 3; k++) {
    a->lo[k] = INFINITY;
    a->hi[k] = -INFINITY;
  }
  int dim = mbd_model_dim(a->m);
  for (int b = 1; b < mbd_model_nbody(a->m); b++) {
    for (int k = 0; k < dim; k++) {
      int c = a->bchan[7 * b + k];
      for (int i = 0; c >= 0 && i < n; i = (i < n - 1 && i + step > n - 1) ? n - 1 : i + step) {
        double v = mbd_run_sample(r, c, i);
        if (isfinite(v)) {
          a->lo[k] = fmin(a->lo[k], v);
          a->hi[k] = fmax(a->hi[k], v);
        }
      }
    }
  }
  static const char *const p3[] = {"px", "py", "pz"};
  for (int ct = 0; ct < mbd_model_ncontact(a->m); ct++) {
    for (int k = 0; k < dim; k++) {
      int c = chan(r, mbd_model_contact_name(a->m, ct), p3[k]);
      for (int i = 0; c >= 0 && i < n; i += step) {
        double v = mbd_run_sample(r, c, i);
        if (isfinite(v)) {
          a->lo[k] = fmin(a->lo[k], v);
          a->hi[k] = fmax(a->hi[k], v);
        }
      }
    }
  }
  for (int j = 0; j < mbd_model_njoint(a->m); j++) {
    mbd_joint_desc jd;
    mbd_model_describe_joint(a->m, j, &jd);
    for (int k = 0; k < dim && (jd.body1 == 0 || jd.body2 == 0); k++) {
      double v = jd.body1 == 0 ? jd.at1[k] : jd.at2[k];
      a->lo[k] = fmin(a->lo[k], v);
      a->hi[k] = fmax(a->hi[k], v);
    }
  }
  for (int k = 0; k < 3; k++) {
    if (!(a->lo[k] <= a->hi[k]) || k >= dim) {
      a->lo[k] = a->hi[k] = 0;
    }
  }
}

/* the length of the extent's diagonal, at least 1 mm */
static double extent_size(const anim *a) {
  double d = 0;
  for (int k = 0; k < 3; k++) {
    d += (a->hi[k] - a->lo[k]) * (a->hi[k] - a->lo[k]);
  }
  return fmax(sqrt(d), 1e-3);
}

/* the parameters of surface s its contacts visited in the run: want_lo/hi[0..1] for curves and
 * parametric surfaces (channels <contact>.u1 / .v2 ...), plo/phi the body-frame points of implicit
 * ones (.x1 .y1 .z1 ...); unvisited entries stay at +inf / -inf */
static void visited(const anim *a, int s, double *wlo, double *whi, double *plo, double *phi) {
  static const char *const uv[] = {"u", "v"}, *const xyz[] = {"x", "y", "z"};
  const mbd_run *r = a->r;
  int n = mbd_run_nsample(r);
  for (int k = 0; k < 3; k++) {
    plo[k] = INFINITY;
    phi[k] = -INFINITY;
  }
  wlo[0] = wlo[1] = INFINITY;
  whi[0] = whi[1] = -INFINITY;
  mbd_surface_desc sd;
  mbd_model_describe_surface(a->m, s, &sd);
  int implicit = sd.np == 3;
  for (int c = 0; c < mbd_model_ncontact(a->m); c++) {
    int s1, s2;
    mbd_model_contact_surfaces(a->m, c, &s1, &s2);
    for (int side = 0; side < 2; side++) {
      if ((side ? s2 : s1) != s) {
        continue;
      }
      for (int k = 0; k < sd.np; k++) {
        char field[8];
        snprintf(field, sizeof field, "%s%d", implicit ? xyz[k] : uv[k], side + 1);
        int ch = chan(r, mbd_model_contact_name(a->m, c), field);
        double *lo = implicit ? &plo[k] : &wlo[k], *hi = implicit ? &phi[k] : &whi[k];
        for (int i = 0; ch >= 0 && i < n; i++) {
          double v = mbd_run_sample(r, ch, i);
          if (isfinite(v)) {
            *lo = fmin(*lo, v);
            *hi = fmax(*hi, v);
          }
        }
      }
    }
  }
}

/* the surfaces: kind, parameters, body and their drawing in the body frame */
static int putsurfaces(out *o, const anim *a, mbd_error *err) {
  const mbd_model *m = a->m;
  double size = extent_size(a);
  put(o, "[");
  for (int s = 0; s < mbd_model_nsurface(m); s++) {
    mbd_surface_desc sd;
    mbd_model_describe_surface(m, s, &sd);
    // the window: the run's extent padded by a quarter of its size (ground), or a cube of that
    // size around the surface's point (a body); an implicit surface's cube holds its contact points
    double lo[3], hi[3], wlo[2], whi[2], plo[3], phi[3];
    visited(a, s, wlo, whi, plo, phi);
    for (int k = 0; k < 3; k++) {
      if (sd.body == 0) {
        lo[k] = a->lo[k] - 0.25 * size;
        hi[k] = a->hi[k] + 0.25 * size;
      } else {
        lo[k] = sd.at[k] - 0.5 * size;
        hi[k] = sd.at[k] + 0.5 * size;
      }
      if (sd.np == 3 && plo[k] <= phi[k]) {
        double half = fmax(0.75 * (phi[k] - plo[k]), 0.25 * size), mid = 0.5 * (plo[k] + phi[k]);
        lo[k] = mid - half;
        hi[k] = mid + half;
      }
    }
    mbd_surface_drawing dr;
    int rc = mbd_surface_draw(m, s, lo, hi, wlo[0] <= whi[0] ? wlo : NULL,
                              wlo[0] <= whi[0] ? whi : NULL, &dr, err);
    if (rc != MBD_OK) {
      return rc;
    }
    put(o, s ? ",{\"name\":" : "{\"name\":");
    putstr(o, sd.name);
    put(o, ",\"kind\":");
    putstr(o, mbd_shape_name(sd.shape));
    put(o, ",\"body\":");
    putint(o, sd.body > 0 ? a->bmap[sd.body] : -1);
    put(o, sd.inner ? ",\"inner\":true" : ",\"inner\":false");
    put(o, ",\"at\":");
    putvec(o, sd.at, 3);
    if (sd.shape == MBD_SHAPE_LINE || sd.shape == MBD_SHAPE_PLANE) {
      put(o, ",\"e1\":");
      putvec(o, sd.e1, 3);
    }
    if (sd.shape == MBD_SHAPE_PLANE) {
      put(o, ",\"e2\":");
      putvec(o, sd.e2, 3);
      put(o, ",\"normal\":");
      putvec(o, sd.normal, 3);
    }
    if (sd.shape == MBD_SHAPE_CIRCLE || sd.shape == MBD_SHAPE_SPHERE) {
      put(o, ",\"radius\":");
      putnum(o, sd.radius);
    }
    if (sd.shape == MBD_SHAPE_SINE) {
      put(o, ",\"amplitude\":");
      putnum(o, sd.amplitude);
      put(o, ",\"wavelength\":");
      putnum(o, sd.wavelength);
    }
    if (sd.np < 3) {
      put(o, ",\"range\":[");
      for (int k = 0; k < sd.np; k++) {
        put(o, k ? "," : "");
        putvec(o, sd.range[k], 2);
      }
      put(o, "]");
    }
    if (dr.dim == 2) {
      put(o, dr.closed ? ",\"closed\":true,\"line\":" : ",\"closed\":false,\"line\":");
      putflat(o, dr.xyz, 3 * (size_t)dr.npoint, 7);
      put(o, ",\"normals\":");
      putflat(o, dr.nrm, 3 * (size_t)dr.npoint, 5);
    } else {
      put(o, ",\"mesh\":{\"v\":");
      putflat(o, dr.xyz, 3 * (size_t)dr.npoint, 5);
      put(o, ",\"i\":[");
      for (int i = 0; i < 3 * dr.ntri; i++) {
        put(o, i ? "," : "");
        putint(o, dr.tri[i]);
      }
      put(o, "]}");
    }
    put(o, "}");
    mbd_surface_drawing_free(&dr);
  }
  put(o, "]");
  return MBD_OK;
}

/* the contacts: point, normal force and friction force (on body 2) per sample */
static void putcontacts(out *o, const anim *a) {
  static const char *const keys[] = {"px", "py", "pz", "nx", "ny", "nz", "fx", "fy", "fz"};
  put(o, "[");
  for (int c = 0; c < mbd_model_ncontact(a->m); c++) {
    const char *name = mbd_model_contact_name(a->m, c);
    int s1, s2;
    mbd_model_contact_surfaces(a->m, c, &s1, &s2);
    put(o, c ? ",{\"name\":" : "{\"name\":");
    putstr(o, name);
    put(o, ",\"surface1\":");
    putint(o, s1);
    put(o, ",\"surface2\":");
    putint(o, s2);
    for (int k = 0; k < 9; k++) {
      put(o, ",\"");
      put(o, keys[k]);
      put(o, "\":");
      putchannel(o, a, chan(a->r, name, keys[k]));
    }
    put(o, "}");
  }
  put(o, "]");
}

/* is channel prefix `name` a contact's (its points are in contacts[]) */
static int is_contact(const anim *a, const char *name) {
  return mbd_model_find_contact(a->m, name) >= 0;
}

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
    if (cy < 0 || is_contact(a, prefix)) {
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

/* the flexible bodies: frame, nodes (bodies of the page), undeformed positions and elements */
static void putflex(out *o, const anim *a) {
  const mbd_model *m = a->m;
  int first = 1;
  put(o, "[");
  for (int b = 1; b < mbd_model_nbody(m); b++) {
    int nn = mbd_model_flex_nnode(m, b);
    if (nn == 0 || a->bmap[b] < 0) {
      continue;
    }
    put(o, first ? "{\"name\":" : ",{\"name\":");
    first = 0;
    putstr(o, mbd_model_body_name(m, b));
    put(o, ",\"body\":");
    putint(o, a->bmap[b]);
    put(o, ",\"nodes\":[");
    for (int k = 1; k <= nn; k++) {
      put(o, k > 1 ? "," : "");
      putint(o, a->bmap[mbd_model_flex_node(m, b, k)]);
    }
    put(o, "],\"xyz\":");
    putflat(o, mbd_model_flex_xyz(m, b), 3 * (size_t)nn, 7);
    const int *elem;
    int ne = mbd_model_flex_elements(m, b, &elem);
    put(o, ",\"elements\":[");
    for (int e = 0; e < 2 * ne; e++) {
      put(o, e ? "," : "");
      putint(o, elem[e] - 1);
    }
    put(o, "]}");
  }
  put(o, "]");
}

static int putdata(out *o, const anim *a, mbd_error *err) {
  const mbd_model *m = a->m;
  const mbd_run *r = a->r;
  int dim = mbd_model_dim(m);
  put(o, "{\"format\":\"mbd-animation\",\"version\":2,\"title\":");
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
  put(o, "],\"extent\":{\"lo\":");
  putvec(o, a->lo, 3);
  put(o, ",\"hi\":");
  putvec(o, a->hi, 3);
  put(o, "},\"bodies\":[");
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
    put(o, ",\"role\":");
    put(o, mbd_model_flex_nnode(m, b) > 0     ? "\"flex\""
           : mbd_model_body_owner(m, b) >= 0 ? "\"node\""
                                             : "\"body\"");
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
  put(o, ",\"contacts\":");
  putcontacts(o, a);
  put(o, ",\"surfaces\":");
  int rc = putsurfaces(o, a, err);
  put(o, "}");
  return rc;
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
    return luaL_error(L, LMSG_ANIMATE_BODY_BODY_S_NAME, what, lx_typename(L, idx));
  }
  int b = mbd_model_find_body(m, name);
  if (b < 1) {
    return luaL_error(L, LMSG_ANIMATE_BODY_MODEL, what, name, mbd_model_name(m));
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
    luaL_error(L, LMSG_ANIMATE_FIELD_SHAPES_TABLE_BODY, lx_typename(L, -1));
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
      luaL_error(L, LMSG_ANIMATE_BOX_LX_LY_LZ, what);
    }
    for (int k = 0; k < (s->kind == 1 ? 3 : s->kind == 2 ? 1 : 2); k++) {
      if (!(s->v[k] > 0)) {
        luaL_error(L, LMSG_ANIMATE_SIZES_POSITIVE, what);
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
    luaL_error(L, LMSG_ANIMATE_MOST_TRACES, MAX_TRACES);
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
    return luaL_error(L, LMSG_ANIMATE_MISSING_FIELD_FILE_HTML);
  }
  a.title = lx_opt_string(L, 2, "animate", "title");
  a.every = 1;
  lx_opt_int(L, 2, "animate", "every", &a.every);
  if (a.every < 1) {
    return luaL_error(L, LMSG_ANIMATE_FIELD_EVERY_LEAST, a.every);
  }
  if (mbd_run_nsample(r) < 1) {
    return luaL_error(L, LMSG_ANIMATE_RUN_SAMPLES);
  }
  // the model that made the run
  if (l_run_push_owner(L, 1) == LUA_TNIL || !luaL_testudata(L, -1, "mbd.Model")) {
    return luaL_error(L, LMSG_ANIMATE_RUNS_MBD_MODEL_ANIMATED);
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
  extent(&a);

  // the template around its marker
  const char *page = (const char *)mbd_viewer_page;
  const char *mark = strstr(page, MARKER);
  if (!mark) {
    return luaL_error(L, LMSG_ANIMATE_EMBEDDED_PAGE_DATA_MARKER);
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
  if (putdata(&o, &a, &err) != MBD_OK) {
    mbd_out_discard(&fo);
    return luaL_error(L, LMSG_ANIMATE_ENGINE, err.msg);
  }
  put(&o, mark + strlen(MARKER));
  if (mbd_out_commit(&fo, &err) != MBD_OK) {
    return luaL_error(L, "%s", err.msg);
  }
  lua_pushstring(L, a.file);
  return 1;
}
