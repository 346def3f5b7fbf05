/* DART driver of scripts/bench/peers.lua: builds the planar model of a model file (planar_model.h)
 * as a skeleton of revolute joints and integrates Skeleton::computeForwardDynamics (DART's
 * articulated-body algorithm) with the classical fixed-step RK4, printing the absolute angle of
 * every body at NSAMPLES equally spaced times.
 *
 *   dart_bench MODEL.txt T_END STEP NSAMPLES REPEATS
 *
 * DART's own World::step is a semi-implicit Euler step; RK4 here makes its figures those of its
 * dynamics under the same integrator as MuJoCo's.  Loop closures are not supported: DART enforces
 * them only inside World::step's constraint solver (the driver says so and exits).  A world-frame
 * force is stored by DART in the body's frame, so the loads are set again at every evaluation.
 * Output: the protocol of mujoco_bench.c (evals = 4 per step); the CPU time covers setting the
 * initial state and the steps. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <string>
#include <vector>

#include "planar_model.h"

#ifndef PEER_VERSION
#define PEER_VERSION "?"
#endif

using namespace dart::dynamics;

static double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

int main(int argc, char **argv) {
  if (argc != 6) {
    std::printf("error usage: dart_bench MODEL.txt T_END STEP NSAMPLES REPEATS\n");
    return 1;
  }
  PlanarModel pm;
  std::string err;
  if (!read_planar_model(argv[1], pm, err)) {
    std::printf("error %s\n", err.c_str());
    return 1;
  }
  if (!pm.loops.empty()) {
    std::printf(
        "error closed loops are not supported by this driver (DART enforces them only in "
        "World::step's constraint solver)\n");
    return 1;
  }
  double t_end = std::atof(argv[2]), h = std::atof(argv[3]);
  int nsamples = std::atoi(argv[4]), repeats = std::atoi(argv[5]);
  long nsteps = std::lround(t_end / h);
  if (h <= 0 || nsamples < 1 || repeats < 1 || nsteps % nsamples != 0 ||
      std::fabs(static_cast<double>(nsteps) * h - t_end) > 1e-9 * t_end) {
    std::printf("error T_END / STEP must be a whole multiple of NSAMPLES steps\n");
    return 1;
  }

  // the skeleton: revolute joints about z at the bodies' origins
  SkeletonPtr skel = Skeleton::create("planar");
  skel->setGravity(Eigen::Vector3d(pm.gx, pm.gy, 0));
  std::vector<BodyNode *> bn(1, nullptr);
  for (std::size_t i = 0; i < pm.bodies.size(); i++) {
    const PlanarBody &b = pm.bodies[i];
    RevoluteJoint::Properties jp;
    jp.mName = "j" + std::to_string(i + 1);
    jp.mAxis = Eigen::Vector3d::UnitZ();
    jp.mT_ParentBodyToJoint = Eigen::Isometry3d::Identity();
    jp.mT_ParentBodyToJoint.translation() = Eigen::Vector3d(b.px, b.py, 0);
    jp.mT_ChildBodyToJoint = Eigen::Isometry3d::Identity();
    BodyNode::Properties bp;
    bp.mName = "b" + std::to_string(i + 1);
    bp.mInertia =
        Inertia(b.mass, Eigen::Vector3d(b.cx, b.cy, 0), b.J * Eigen::Matrix3d::Identity());
    bn.push_back(skel->createJointAndBodyNodePair<RevoluteJoint>(bn[b.parent], jp, bp).second);
  }
  std::size_t n = pm.bodies.size();
  Eigen::VectorXd q0(n);
  for (std::size_t i = 0; i < n; i++) {
    const PlanarBody &b = pm.bodies[i];
    q0[i] = b.angle - (b.parent ? pm.bodies[b.parent - 1].angle : 0);
  }

  // one evaluation: accelerations at (q, v), the loads set again on the new pose
  auto accel = [&](const Eigen::VectorXd &q, const Eigen::VectorXd &v) -> Eigen::VectorXd {
    skel->setPositions(q);
    skel->setVelocities(v);
    for (const PlanarLoad &l : pm.loads) {
      bn[l.body]->clearExternalForces();
    }
    for (const PlanarLoad &l : pm.loads) {
      bn[l.body]->addExtForce(Eigen::Vector3d(l.fx, l.fy, 0), Eigen::Vector3d(l.x, l.y, 0), false,
                              true);
      bn[l.body]->addExtTorque(Eigen::Vector3d(0, 0, l.tz), false);
    }
    skel->computeForwardDynamics();
    return skel->getAccelerations();
  };

  std::vector<double> angles(n * nsamples), cpu;
  long per = nsteps / nsamples;
  for (int r = 0; r < repeats; r++) {
    double c0 = cpu_now();
    Eigen::VectorXd q = q0, v = Eigen::VectorXd::Zero(n);
    for (int s = 0; s < nsamples; s++) {
      for (long k = 0; k < per; k++) {
        // classical RK4 on (q, v)
        Eigen::VectorXd a1 = accel(q, v);
        Eigen::VectorXd q2 = q + 0.5 * h * v, v2 = v + 0.5 * h * a1;
        Eigen::VectorXd a2 = accel(q2, v2);
        Eigen::VectorXd q3 = q + 0.5 * h * v2, v3 = v + 0.5 * h * a2;
        Eigen::VectorXd a3 = accel(q3, v3);
        Eigen::VectorXd q4 = q + h * v3, v4 = v + h * a3;
        Eigen::VectorXd a4 = accel(q4, v4);
        q += h / 6 * (v + 2 * v2 + 2 * v3 + v4);
        v += h / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
      }
      skel->setPositions(q);
      for (std::size_t i = 0; i < n; i++) {
        const Eigen::Matrix3d R = bn[i + 1]->getWorldTransform().linear();
        angles[s * n + i] = std::atan2(R(1, 0), R(0, 0));
      }
    }
    cpu.push_back(cpu_now() - c0);
  }
  print_run("DART " PEER_VERSION, 4 * nsteps, nsteps, cpu);
  for (int s = 0; s < nsamples; s++) {
    std::printf("sample %.17g", t_end * (s + 1) / nsamples);
    for (std::size_t i = 0; i < n; i++) {
      std::printf(" %.17g", angles[s * n + i]);
    }
    std::printf("\n");
  }
  return 0;
}
