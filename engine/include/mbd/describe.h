/* mbd — what a model is made of, for drawings and reports: bodies with their mass properties,
 * joints with their points and axes, springs and the points forces act at.  Read-only views of
 * the model as the user built it (before or after assembly); names and pointers stay valid until
 * the model is changed or freed.  Used by the animation page (run:animate) and m:explain. */
#ifndef MBD_DESCRIBE_H
#define MBD_DESCRIBE_H

#include "mbd/model.h"

typedef struct mbd_body_desc {
  const char *name;     /* the body's name ("ground" for index 0) */
  int ground;           /* 1 for the ground */
  double mass;          /* kg (0 for the ground) */
  double inertia[9];    /* 3×3 about the CM, body frame, row-major; planar: only [8] = Izz */
  double pos[3];        /* initial position of the CM as given (global) */
} mbd_body_desc;

/* the model's gravity vector (global, m/s²; planar: g[2] = 0) */
void mbd_model_get_gravity(const mbd_model *m, double g[3]);

/* body b (0 = ground … mbd_model_nbody − 1) into out: MBD_OK or MBD_E_INPUT for an index out of
 * range */
int mbd_model_describe_body(const mbd_model *m, int b, mbd_body_desc *out);

typedef struct mbd_joint_desc {
  const char *name;     /* the joint's name */
  const char *type;     /* "revolute", "translational", ... */
  int body1, body2;     /* body indices (0 = ground) */
  double at1[3], at2[3];     /* joint point in each body's frame */
  double axis1[3], axis2[3]; /* unit axes in the body frames (zero when the type has none) */
  int driven;           /* 1 when a drive prescribes its coordinate */
} mbd_joint_desc;

int mbd_model_describe_joint(const mbd_model *m, int j, mbd_joint_desc *out);

typedef struct mbd_spring_desc {
  const char *name;
  int body1, body2;
  double at1[3], at2[3]; /* attachment points in the body frames */
  double k, c, length;   /* N/m, N·s/m, m */
} mbd_spring_desc;

/* translational springs (m:spring): count and description */
int mbd_model_nspring(const mbd_model *m);
int mbd_model_describe_spring(const mbd_model *m, int s, mbd_spring_desc *out);

typedef struct mbd_force_desc {
  int body;             /* body it acts on (≥ 1) */
  int torque;           /* 1 for a torque (no point) */
  double at[3];         /* application point in the body frame (forces) */
  int function;         /* 1 when its value is a function of time and state */
  double value[3];      /* the constant value (global), when not a function */
} mbd_force_desc;

/* applied forces and torques (m:force, m:torque): count and description */
int mbd_model_nforce(const mbd_model *m);
int mbd_model_describe_force(const mbd_model *m, int f, mbd_force_desc *out);

/* a 64-bit FNV-1a hash of the model's description, as 16 hex digits in out (17 bytes): dimension,
 * gravity, every body (name, mass, inertia, given pose and velocities), joint (name, type, bodies,
 * points, axes), drive, force, spring and rotational spring.  A function (a force or a drive
 * given as a Lua function) counts by its presence only.  Two models built by the same script
 * with the same numbers have the same hash. */
void mbd_model_hash(const mbd_model *m, char out[17]);

#endif
