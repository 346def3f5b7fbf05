/* Simbody driver of scripts/bench/peers.lua: builds the planar model of a model file
 * (planar_model.h) from pin mobilizers, integrates it with one of Simbody's integrators at an
 * accuracy and prints the absolute angle of every body at NSAMPLES equally spaced times.
 *
 *   simbody_bench MODEL.txt T_END INTEGRATOR ACCURACY NSAMPLES REPEATS
 *
 * Integrators: rkm (Runge-Kutta-Merson), rkf (Runge-Kutta-Fehlberg), rk3, cpodes-adams (CPodes
 * Adams, functional iteration), cpodes-bdf (CPodes BDF, Newton), verlet.  Every other setting is
 * Simbody's default (the constraint tolerance among them).  A loop closes by two PointInPlane
 * constraints (the point stays in two planes of the other body through its partner point: exactly
 * the two planar equations).  Output: the protocol of mujoco_bench.c; evals counts realizations
 * (Integrator::getNumRealizations), steps the steps taken; the CPU time covers
 * Integrator::initialize and the steps to T_END. */
#include <Simbody.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "planar_model.h"

#ifndef PEER_VERSION
#define PEER_VERSION "?"
#endif

using namespace SimTK;

static double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

static Integrator *make_integrator(const std::string &name, const MultibodySystem &sys) {
  if (name == "rkm") {
    return new RungeKuttaMersonIntegrator(sys);
  } else if (name == "rkf") {
    return new RungeKuttaFeldbergIntegrator(sys);
  } else if (name == "rk3") {
    return new RungeKutta3Integrator(sys);
  } else if (name == "cpodes-adams") {
    return new CPodesIntegrator(sys, CPodes::Adams, CPodes::Functional);
  } else if (name == "cpodes-bdf") {
    return new CPodesIntegrator(sys, CPodes::BDF, CPodes::Newton);
  } else if (name == "verlet") {
    return new VerletIntegrator(sys);
  }
  return nullptr;
}

int main(int argc, char **argv) {
  if (argc != 7) {
    std::printf(
        "error usage: simbody_bench MODEL.txt T_END INTEGRATOR ACCURACY NSAMPLES REPEATS\n");
    return 1;
  }
  PlanarModel pm;
  std::string err;
  if (!read_planar_model(argv[1], pm, err)) {
    std::printf("error %s\n", err.c_str());
    return 1;
  }
  double t_end = std::atof(argv[2]), acc = std::atof(argv[4]);
  std::string iname = argv[3];
  int nsamples = std::atoi(argv[5]), repeats = std::atoi(argv[6]);
  if (nsamples < 1 || repeats < 1 || acc <= 0) {
    std::printf("error bad NSAMPLES, REPEATS or ACCURACY\n");
    return 1;
  }

  // the system: pins about z, gravity, constant loads, loop closures
  MultibodySystem sys;
  SimbodyMatterSubsystem matter(sys);
  GeneralForceSubsystem forces(sys);
  if (pm.gx != 0 || pm.gy != 0) {
    Force::UniformGravity(forces, matter, Vec3(pm.gx, pm.gy, 0));
  }
  std::vector<MobilizedBody> mb(1, matter.Ground());
  std::vector<MobilizedBody::Pin> pins;
  for (const PlanarBody &b : pm.bodies) {
    Vec3 com(b.cx, b.cy, 0);
    // Simbody takes the inertia about the body's origin (here the joint)
    Inertia about_origin = Inertia(Vec3(b.J, b.J, b.J)).shiftFromMassCenter(-com, b.mass);
    Body::Rigid body(MassProperties(b.mass, com, about_origin));
    MobilizedBody::Pin pin(mb[b.parent], Transform(Vec3(b.px, b.py, 0)), body, Transform());
    mb.push_back(pin);
    pins.push_back(pin);
  }
  for (const PlanarLoad &l : pm.loads) {
    if (l.fx != 0 || l.fy != 0) {
      Force::ConstantForce(forces, mb[l.body], Vec3(l.x, l.y, 0), Vec3(l.fx, l.fy, 0));
    }
    if (l.tz != 0) {
      Force::ConstantTorque(forces, mb[l.body], Vec3(0, 0, l.tz));
    }
  }
  for (const PlanarLoop &c : pm.loops) {
    Constraint::PointInPlane(mb[c.b], UnitVec3(1, 0, 0), c.bx, mb[c.a], Vec3(c.ax, c.ay, 0));
    Constraint::PointInPlane(mb[c.b], UnitVec3(0, 1, 0), c.by, mb[c.a], Vec3(c.ax, c.ay, 0));
  }
  sys.realizeTopology();
  State s0 = sys.getDefaultState();
  for (std::size_t i = 0; i < pm.bodies.size(); i++) {
    const PlanarBody &b = pm.bodies[i];
    double parent = b.parent ? pm.bodies[b.parent - 1].angle : 0;
    pins[i].setAngle(s0, b.angle - parent);
  }

  std::size_t nb = pm.bodies.size();
  std::vector<double> angles(nb * nsamples), cpu;
  long evals = 0, steps = 0;
  for (int r = 0; r < repeats; r++) {
    std::unique_ptr<Integrator> integ(make_integrator(iname, sys));
    if (!integ) {
      std::printf(
          "error unknown integrator '%s' (rkm, rkf, rk3, cpodes-adams, cpodes-bdf, verlet)\n",
          iname.c_str());
      return 1;
    }
    integ->setAccuracy(acc);
    integ->setFinalTime(t_end);
    State s = s0;
    try {
      double c0 = cpu_now();
      integ->initialize(s);
      for (int k = 0; k < nsamples; k++) {
        double ts = t_end * (k + 1) / nsamples;
        while (integ->getTime() < ts * (1 - 1e-14)) {
          integ->stepTo(ts);
        }
        const State &st = integ->getState();
        sys.realize(st, Stage::Position);
        for (std::size_t i = 0; i < nb; i++) {
          const Rotation &R = mb[i + 1].getBodyRotation(st);
          angles[k * nb + i] = std::atan2(R.x()[1], R.x()[0]);
        }
      }
      cpu.push_back(cpu_now() - c0);
    } catch (const std::exception &e) {
      std::string what = e.what();
      for (char &ch : what) {
        ch = ch == '\n' ? ' ' : ch;
      }
      std::printf("error %s\n", what.c_str());
      return 1;
    }
    evals = integ->getNumRealizations();
    steps = integ->getNumStepsTaken();
  }
  print_run("Simbody " PEER_VERSION, evals, steps, cpu);
  for (int k = 0; k < nsamples; k++) {
    std::printf("sample %.17g", t_end * (k + 1) / nsamples);
    for (std::size_t i = 0; i < nb; i++) {
      std::printf(" %.17g", angles[k * nb + i]);
    }
    std::printf("\n");
  }
  return 0;
}
