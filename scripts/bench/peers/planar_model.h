/* The planar model file of scripts/bench/peers.lua, read by the Simbody and DART drivers (MuJoCo
 * reads the same model as MJCF).  Bodies move in the x-y plane, each on a revolute joint about z;
 * lengths in m, masses in kg, angles in rad.  One record a line:
 *
 *   gravity gx gy
 *   body parent px py angle mass cx cy J    body i (1, 2, ... in file order): its joint at (px, py)
 *                                           in the parent's frame (parent 0: the ground, world
 *                                           coordinates); its frame's origin at the joint, turned
 *                                           by `angle` (absolute, at t = 0); CM at (cx, cy) in
 *                                           its frame; J about the CM.  Parents come first.
 *   torque b tz                             a constant torque on body b
 *   force b x y fx fy                       a constant world force at (x, y) in body b's frame
 *   loop a ax ay b bx by                    point (ax, ay) of body a stays on point (bx, by) of b
 *
 * Every body starts at rest. */
#ifndef PEERS_PLANAR_MODEL_H
#define PEERS_PLANAR_MODEL_H

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct PlanarBody {
  int parent;           // 0 ground, else 1-based body index
  double px, py;        // joint in the parent's frame
  double angle;         // absolute angle at t = 0
  double mass, cx, cy;  // mass and CM in the body's frame
  double J;             // moment of inertia about the CM (z)
};

struct PlanarLoad {
  int body;
  double x, y, fx, fy, tz;  // force (fx, fy) at (x, y) of the body; torque tz
};

struct PlanarLoop {
  int a, b;
  double ax, ay, bx, by;
};

struct PlanarModel {
  double gx = 0, gy = 0;
  std::vector<PlanarBody> bodies;
  std::vector<PlanarLoad> loads;
  std::vector<PlanarLoop> loops;
};

/* read a model file; false with a message in err when it does not parse */
static inline bool read_planar_model(const char *path, PlanarModel &m, std::string &err) {
  std::ifstream in(path);
  if (!in) {
    err = std::string("cannot open ") + path;
    return false;
  }
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    lineno++;
    std::istringstream s(line);
    std::string key;
    if (!(s >> key) || key[0] == '#') {
      continue;
    }
    bool ok = true;
    if (key == "gravity") {
      ok = static_cast<bool>(s >> m.gx >> m.gy);
    } else if (key == "body") {
      PlanarBody b;
      ok = static_cast<bool>(s >> b.parent >> b.px >> b.py >> b.angle >> b.mass >> b.cx >> b.cy >>
                             b.J) &&
           b.parent >= 0 && b.parent <= static_cast<int>(m.bodies.size());
      m.bodies.push_back(b);
    } else if (key == "torque") {
      PlanarLoad l{0, 0, 0, 0, 0, 0};
      ok = static_cast<bool>(s >> l.body >> l.tz);
      m.loads.push_back(l);
    } else if (key == "force") {
      PlanarLoad l{0, 0, 0, 0, 0, 0};
      ok = static_cast<bool>(s >> l.body >> l.x >> l.y >> l.fx >> l.fy);
      m.loads.push_back(l);
    } else if (key == "loop") {
      PlanarLoop c;
      ok = static_cast<bool>(s >> c.a >> c.ax >> c.ay >> c.b >> c.bx >> c.by);
      m.loops.push_back(c);
    } else {
      ok = false;
    }
    if (!ok) {
      err = std::string(path) + ":" + std::to_string(lineno) + ": cannot read '" + line + "'";
      return false;
    }
  }
  return true;
}

/* the protocol's header and cpu line (see peers.lua) */
static inline void print_run(const char *engine, long evals, long steps,
                             const std::vector<double> &cpu) {
  std::printf("engine %s\nevals %ld\nsteps %ld\ncpu", engine, evals, steps);
  for (double c : cpu) {
    std::printf(" %.9f", c);
  }
  std::printf("\n");
}

#endif
