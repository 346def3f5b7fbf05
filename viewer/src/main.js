// The page of mbd's run:animate: a 3-D replay of a run.  The run's data (docs/reference.md,
// "run:animate", describes the format) is a JSON object in the element #mbd-data; this script
// builds the scene once and poses it at any time of the run.
//
// Options after '#' in the address, for sharing a view and for the tests:
//   t=<seconds>|end   show that time, paused        speed=<factor>   playback speed
//   view=x0,x1,y0,y1  orthographic view down -z onto that rectangle of the x-y plane
//   axes=xz           with view: the x-z plane seen from -y instead (x right, z up)
//   forces=0|1        contact forces as arrows (shown by default)
//   beam=deflection   flexible bodies coloured by their deflection
//   highlight=<body>  that body drawn flat magenta (#ff00ff) over everything else
//   ui=0              no title and no controls
// The page reports on <html>: data-mbd-status ("ready", "no-webgl", "error") and
// data-mbd-errors (a JSON list of the error messages seen, "[]" when none).
import {
  AmbientLight, ArrowHelper, BoxGeometry, BufferAttribute, BufferGeometry, Color,
  CylinderGeometry, DirectionalLight, DoubleSide, GridHelper, Group, Line, LineBasicMaterial, Mesh,
  MeshBasicMaterial, MeshLambertMaterial, OrthographicCamera, PerspectiveCamera, Quaternion, Scene,
  Shape, ShapeGeometry, SphereGeometry, Vector2, Vector3, WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

const root = document.documentElement;
const errors = [];

// every error the page meets is kept and shown: the tests read data-mbd-errors
function report(msg) {
  errors.push(String(msg));
  root.dataset.mbdErrors = JSON.stringify(errors);
  const box = document.getElementById('errors');
  if (box) {
    box.style.display = 'block';
    box.textContent = errors.join('\n');
  }
}
root.dataset.mbdErrors = '[]';
window.addEventListener('error', (e) => report(e.message || e));
window.addEventListener('unhandledrejection', (e) => report(e.reason || e));
const consoleError = console.error.bind(console);
console.error = (...args) => { report(args.join(' ')); consoleError(...args); };

const PALETTE = [0x3b6fb6, 0xd9822b, 0x3f9b5a, 0xb84a4a, 0x7d5ba6, 0x2a9d9d, 0xa8862c, 0x5c6b80];
const MAGENTA = 0xff00ff;

// ---------------------------------------------------------------------------------------------
// options and data

function parseHash() {
  const o = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const i = part.indexOf('=');
    const k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
    o[k] = i < 0 ? '' : decodeURIComponent(part.slice(i + 1));
  }
  return o;
}

function readData() {
  const el = document.getElementById('mbd-data');
  const data = JSON.parse(el.textContent);
  if (!data || data.format !== 'mbd-animation') {
    throw new Error('no mbd animation data in this page');
  }
  return data;
}

// ---------------------------------------------------------------------------------------------
// poses: a body's position and orientation at a time, interpolated between samples

// the sample interval [i, i+1] holding t and the fraction s in it
function locate(times, t) {
  const n = times.length;
  if (n === 1 || t <= times[0]) return [0, 0];
  if (t >= times[n - 1]) return [n - 1, 0];
  let lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t) lo = mid; else hi = mid;
  }
  const span = times[hi] - times[lo];
  return [lo, span > 0 ? (t - times[lo]) / span : 0];
}

function lerpAt(arr, i, s) {
  if (!arr) return 0;
  const a = arr[i];
  if (s === 0 || i + 1 >= arr.length) return a;
  return a + s * (arr[i + 1] - a);
}

// position (Vector3) and orientation (Quaternion) of body b at sample interval (i, s)
function poseOf(dim, b, i, s, pos, quat) {
  pos.set(lerpAt(b.x, i, s), lerpAt(b.y, i, s), lerpAt(b.z, i, s));
  if (dim === 2) {
    const th = lerpAt(b.theta, i, s);
    quat.set(0, 0, Math.sin(th / 2), Math.cos(th / 2));
  } else {
    // Euler parameters (e0 scalar), normalized after the interpolation
    quat.set(lerpAt(b.e1, i, s), lerpAt(b.e2, i, s), lerpAt(b.e3, i, s), lerpAt(b.e0, i, s));
    if (quat.lengthSq() === 0) quat.set(0, 0, 0, 1);
    quat.normalize();
  }
}

// ---------------------------------------------------------------------------------------------
// shapes: given ones, else from the points a body carries and its inertia

const vec = (a) => new Vector3(a[0] || 0, a[1] || 0, a[2] || 0);

// the shape of a body in its frame: {kind, size | radius & length, axis, center}
function shapeOf(data, b, scale) {
  if (b.shape) return b.shape;
  const thick = 0.035 * scale;
  const pts = b.points.map(vec);
  const far = pts.filter((p) => p.length() > 1e-9 * scale);
  if (far.length > 0) {
    // a link: the box spanning its points and centre of mass
    const lo = new Vector3(0, 0, 0), hi = new Vector3(0, 0, 0);
    for (const p of pts) { lo.min(p); hi.max(p); }
    const size = hi.clone().sub(lo);
    const center = hi.clone().add(lo).multiplyScalar(0.5);
    const n = data.dim === 2 ? 2 : 3;
    for (let k = 0; k < 3; k++) {
      size.setComponent(k, k < n ? size.getComponent(k) + thick : thick);
    }
    return { kind: 'box', size: size.toArray(), center: center.toArray() };
  }
  // no points away from the centre of mass: the box of the same mass and inertia
  const I = b.inertia, m = b.mass > 0 ? b.mass : 1;
  let a, c, d;
  if (data.dim === 2) {
    a = c = Math.sqrt(Math.max(6 * I[8] / m, 0));  // square plate: Izz = m a² / 6
    d = thick;
  } else {
    const side = (p, q, r) => Math.sqrt(Math.max(6 * (I[p] + I[q] - I[r]) / m, 0));
    a = side(4, 8, 0); c = side(0, 8, 4); d = side(0, 4, 8);
  }
  const clamp = (x) => Math.min(Math.max(x, thick), 0.6 * scale);
  return { kind: 'box', size: [clamp(a), clamp(c), clamp(d)], center: [0, 0, 0] };
}

function meshOf(shape, material) {
  let geo;
  if (shape.kind === 'sphere') {
    geo = new SphereGeometry(shape.radius, 32, 16);
  } else if (shape.kind === 'cylinder') {
    geo = new CylinderGeometry(shape.radius, shape.radius, shape.length, 32);
    const axis = vec(shape.axis || [0, 0, 1]).normalize();
    geo.applyQuaternion(new Quaternion().setFromUnitVectors(new Vector3(0, 1, 0), axis));
  } else {
    geo = new BoxGeometry(...shape.size);
  }
  const mesh = new Mesh(geo, material);
  if (shape.center) mesh.position.copy(vec(shape.center));
  return mesh;
}

// ---------------------------------------------------------------------------------------------
// the scene

function build(data, opts) {
  const dim = data.dim;
  const times = data.t;
  const nb = data.bodies.length;
  const up = dim === 2 ? new Vector3(0, 1, 0)
    : (data.gravity && Math.hypot(...data.gravity) > 0 ? vec(data.gravity).negate().normalize()
      : new Vector3(0, 0, 1));

  // the extent of the motion: centres of mass over the run, and the points bodies carry
  const lo = new Vector3(Infinity, Infinity, Infinity), hi = lo.clone().negate();
  const p = new Vector3(), q = new Quaternion();
  const step = Math.max(1, Math.floor(times.length / 200));
  for (const b of data.bodies) {
    for (let i = 0; i < times.length; i += step) {
      poseOf(dim, b, i, 0, p, q);
      lo.min(p); hi.max(p);
      for (const a of b.points) {
        const w = vec(a).applyQuaternion(q).add(p);
        lo.min(w); hi.max(w);
      }
    }
  }
  for (const a of data.ground.points) { lo.min(vec(a)); hi.max(vec(a)); }
  if (data.extent) { lo.min(vec(data.extent.lo)); hi.max(vec(data.extent.hi)); }
  // bodies' surfaces reach beyond their origins: pad by the farthest drawn point from one
  let reach = 0;
  for (const sf of data.surfaces || []) {
    if (sf.body < 0) continue;
    const v = sf.line || (sf.mesh && sf.mesh.v) || [];
    for (let i = 0; i + 2 < v.length; i += 3) reach = Math.max(reach, Math.hypot(v[i], v[i + 1], v[i + 2]));
  }
  if (isFinite(lo.x) && reach > 0) {
    lo.subScalar(reach); hi.addScalar(reach);
    if (dim === 2) { lo.z = Math.min(lo.z + reach, 0); hi.z = Math.max(hi.z - reach, 0); }
  }
  for (const c of data.points) {
    for (let i = 0; i < times.length; i += step) {
      p.set(c.x[i], c.y[i], c.z ? c.z[i] : 0); lo.min(p); hi.max(p);
    }
  }
  if (!isFinite(lo.x)) { lo.set(-1, -1, -1); hi.set(1, 1, 1); }
  const center = lo.clone().add(hi).multiplyScalar(0.5);
  const scale = Math.max(hi.clone().sub(lo).length(), 1e-3);

  const scene = new Scene();
  scene.background = new Color(0xffffff);
  scene.add(new AmbientLight(0xffffff, 1.4));
  const sun = new DirectionalLight(0xffffff, 2.0);
  sun.position.copy(up.clone().multiplyScalar(2).add(new Vector3(1, 0.6, 1.4)).multiplyScalar(scale));
  scene.add(sun);

  // a grid: behind a planar mechanism (the x-y plane), under a spatial one (normal to "up")
  const grid = new GridHelper(2 * scale, 20, 0xc8ced8, 0xe3e7ee);
  if (dim === 2) {
    grid.quaternion.setFromUnitVectors(new Vector3(0, 1, 0), new Vector3(0, 0, 1));
    grid.position.set(center.x, center.y, -0.1 * scale);
  } else {
    grid.quaternion.setFromUnitVectors(new Vector3(0, 1, 0), up);
    const low = Math.min(up.dot(lo), up.dot(hi), ...[lo.x, hi.x].flatMap((x) => [lo.y, hi.y]
      .flatMap((y) => [lo.z, hi.z].map((z) => up.dot(new Vector3(x, y, z))))));
    grid.position.copy(center).addScaledVector(up, low - up.dot(center) - 0.05 * scale);
  }
  scene.add(grid);

  // bodies: a group each, posed every frame; the highlighted one flat and on top
  const groups = [];
  const hl = opts.highlight;
  const surfaces = data.surfaces || [];
  const bodyMats = [];
  data.bodies.forEach((b, k) => {
    const g = new Group();
    g.name = b.name;
    const lit = hl === b.name;
    const mat = lit
      ? new MeshBasicMaterial({ color: MAGENTA, depthTest: false, depthWrite: false,
        side: DoubleSide })
      : new MeshLambertMaterial({ color: PALETTE[k % PALETTE.length], transparent: true,
        opacity: 0.92, side: DoubleSide });
    bodyMats.push({ mat, lit });
    // drawn as what the model declares: a flexible body as its beam (below), a node not at all, a
    // body with surfaces as its surfaces; the box only when nothing else describes the body
    const declared = b.role === 'flex' || b.role === 'node' ||
      surfaces.some((sf) => sf.body === k && !sf.inner);
    if (b.shape || !declared) {
      const mesh = meshOf(shapeOf(data, b, scale), mat);
      if (lit) mesh.renderOrder = 10;
      g.add(mesh);
    }
    scene.add(g);
    groups.push(g);
  });

  // surfaces, sampled in their body's frame by run:animate: posed with their body
  const surfaceGroup = new Group();
  scene.add(surfaceGroup);
  const edgeMat = new LineBasicMaterial({ color: 0x1d2433 });
  const groundFill = new MeshLambertMaterial({ color: 0x9aa4b4, transparent: true, opacity: 0.6,
    side: DoubleSide });
  for (const sf of surfaces) {
    const host = sf.body >= 0 ? groups[sf.body] : surfaceGroup;
    const fill = sf.body >= 0 ? bodyMats[sf.body].mat : groundFill;
    const lit = sf.body >= 0 && bodyMats[sf.body].lit;
    const g = new Group();
    g.name = sf.name;
    if (sf.line) {
      const pts = [];
      for (let i = 0; i + 2 < sf.line.length; i += 3) pts.push(new Vector3(sf.line[i], sf.line[i + 1], 0));
      if (pts.length < 2) continue;
      g.add(new Line(new BufferGeometry().setFromPoints(pts), edgeMat));
      if (sf.closed && !sf.inner) {
        // a closed curve around the material: filled, with a spoke so that turning shows
        const fillMesh = new Mesh(new ShapeGeometry(new Shape(pts.map((p) => new Vector2(p.x, p.y))), 1), fill);
        fillMesh.position.z = -1e-4 * scale;
        if (lit) fillMesh.renderOrder = 10;
        g.add(fillMesh);
        const c = vec(sf.at);
        g.add(new Line(new BufferGeometry().setFromPoints([c, pts[0]]), edgeMat));
      } else {
        // an open curve: a band on its material side (against the normal)
        const w = 0.02 * scale;
        const n = sf.normals;
        const pos = [];
        for (let i = 0; i + 1 < pts.length; i++) {
          const a = pts[i], b = pts[i + 1];
          const a2 = [a.x - w * n[3 * i], a.y - w * n[3 * i + 1]];
          const b2 = [b.x - w * n[3 * i + 3], b.y - w * n[3 * i + 4]];
          pos.push(a.x, a.y, 0, b.x, b.y, 0, b2[0], b2[1], 0, a.x, a.y, 0, b2[0], b2[1], 0, a2[0], a2[1], 0);
        }
        const geo = new BufferGeometry();
        geo.setAttribute('position', new BufferAttribute(new Float32Array(pos), 3));
        const band = new Mesh(geo, sf.body >= 0 ? fill : groundFill);
        band.position.z = -2e-4 * scale;
        g.add(band);
      }
    } else if (sf.mesh && sf.mesh.i.length) {
      const geo = new BufferGeometry();
      geo.setAttribute('position', new BufferAttribute(new Float32Array(sf.mesh.v), 3));
      geo.setIndex(sf.mesh.i);
      geo.computeVertexNormals();
      const mesh = new Mesh(geo, fill);
      if (lit) mesh.renderOrder = 10;
      g.add(mesh);
    }
    host.add(g);
  }

  // joints: a marker at the joint point on body2 (on the ground when body2 is the ground)
  const jointMat = new MeshLambertMaterial({ color: 0x333a46 });
  const groundMat = new MeshLambertMaterial({ color: 0x8a93a3 });
  const r = 0.012 * scale;
  for (const j of data.joints) {
    const host = j.body2 >= 0 ? groups[j.body2] : (j.body1 >= 0 ? groups[j.body1] : scene);
    const at = j.body2 >= 0 ? j.at2 : j.at1;
    let m;
    const axis = j.body2 >= 0 ? (j.axis2 || j.axis1) : j.axis1;
    if (j.type === 'revolute' || j.type === 'cylindrical') {
      m = meshOf({ kind: 'cylinder', radius: r, length: 5 * r,
        axis: dim === 2 ? [0, 0, 1] : axis }, jointMat);
    } else if (j.type === 'translational') {
      m = meshOf({ kind: 'box', size: [3 * r, 3 * r, 3 * r] }, jointMat);
    } else if (j.type === 'fixed') {
      m = meshOf({ kind: 'box', size: [2 * r, 2 * r, 2 * r] }, jointMat);
    } else {
      m = meshOf({ kind: 'sphere', radius: 1.3 * r }, jointMat);
    }
    m.position.add(vec(at));
    host.add(m);
    // a rail for sliding joints, fixed in body1 along axis1
    if ((j.type === 'translational' || j.type === 'cylindrical') && j.axis1) {
      const host1 = j.body1 >= 0 ? groups[j.body1] : scene;
      const ax = vec(j.axis1).normalize();
      const rail = new Mesh(new CylinderGeometry(0.3 * r, 0.3 * r, scale, 12), groundMat);
      rail.quaternion.setFromUnitVectors(new Vector3(0, 1, 0), ax);
      rail.position.copy(vec(j.at1));
      host1.add(rail);
    }
  }
  // the ground's points: anchors
  for (const a of data.ground.points) {
    const m = meshOf({ kind: 'box', size: [3 * r, 3 * r, 3 * r] }, groundMat);
    m.position.copy(vec(a));
    if (dim === 2) m.position.z = -2 * r;
    scene.add(m);
  }

  // springs: a zig-zag line between their two points, rebuilt every frame
  const springs = data.springs.map((s) => {
    const geo = new BufferGeometry();
    geo.setAttribute('position', new BufferAttribute(new Float32Array(3 * 26), 3));
    const line = new Line(geo, new LineBasicMaterial({ color: 0x9a4d00 }));
    scene.add(line);
    return { s, line };
  });

  // traces: the path of a body point over the run, drawn up to the current time
  const traceGroup = new Group();
  scene.add(traceGroup);
  const traces = data.traces.map((tr, k) => {
    const b = data.bodies[tr.body];
    const arr = new Float32Array(3 * times.length);
    const a = vec(tr.at);
    for (let i = 0; i < times.length; i++) {
      poseOf(dim, b, i, 0, p, q);
      const w = a.clone().applyQuaternion(q).add(p);
      arr.set([w.x, w.y, w.z], 3 * i);
    }
    const geo = new BufferGeometry();
    geo.setAttribute('position', new BufferAttribute(arr, 3));
    const line = new Line(geo, new LineBasicMaterial({ color: PALETTE[(k + 3) % PALETTE.length] }));
    traceGroup.add(line);
    return line;
  });

  // points recorded as channels <name>.px .py [.pz]
  const pointMeshes = data.points.map((c) => {
    const m = meshOf({ kind: 'sphere', radius: 1.2 * r }, new MeshBasicMaterial({ color: 0xe02020 }));
    scene.add(m);
    return { c, m };
  });

  // contacts: the point, and the normal and friction forces on body 2 as arrows, one scale for
  // both (a round number of newtons per metre, the largest force about a tenth of the scene)
  const contacts = data.contacts || [];
  let fmax = 0;
  for (const c of contacts) {
    for (let i = 0; i < times.length; i++) {
      const n = Math.hypot(c.nx ? c.nx[i] : 0, c.ny ? c.ny[i] : 0, c.nz ? c.nz[i] : 0);
      const f = Math.hypot(c.fx ? c.fx[i] : 0, c.fy ? c.fy[i] : 0, c.fz ? c.fz[i] : 0);
      if (Number.isFinite(n)) fmax = Math.max(fmax, n);
      if (Number.isFinite(f)) fmax = Math.max(fmax, f);
    }
  }
  const forceGroup = new Group();
  scene.add(forceGroup);
  let perMetre = 0;
  if (fmax > 0) {
    const raw = fmax / (0.1 * scale);
    const p10 = 10 ** Math.floor(Math.log10(raw));
    perMetre = [1, 2, 5, 10].map((x) => x * p10).find((x) => x >= raw);
  }
  // the contact dot: small against the smallest round surface
  const radii = surfaces.map((sf) => sf.radius).filter((x) => x > 0);
  const dotR = Math.min(1.2 * r, 0.12 * Math.min(Infinity, ...radii));
  const contactMarks = contacts.map((c) => {
    const dot = meshOf({ kind: 'sphere', radius: dotR }, new MeshBasicMaterial({ color: 0xe02020 }));
    dot.renderOrder = 5;
    scene.add(dot);
    const normal = new ArrowHelper(new Vector3(0, 1, 0), new Vector3(), 1, 0x1f8a3a);
    const friction = new ArrowHelper(new Vector3(1, 0, 0), new Vector3(), 1, 0xd9822b);
    forceGroup.add(normal, friction);
    return { c, dot, normal, friction };
  });
  function setArrow(arrow, o, x, y, z) {
    const len = Math.hypot(x, y, z) / (perMetre || 1);
    arrow.visible = perMetre > 0 && len > 1e-6 * scale && Number.isFinite(len);
    if (!arrow.visible) return;
    arrow.position.copy(o);
    arrow.setDirection(new Vector3(x, y, z).normalize());
    const head = Math.min(0.25 * len, 0.03 * scale, 4 * dotR);
    arrow.setLength(len, head, 0.6 * head);
  }

  // flexible bodies: the centreline through the nodes, each beam element a Hermite cubic of its
  // nodes' positions and slopes (the element's undeformed direction turned by the node's frame),
  // drawn as a tube; nodes without elements as dots
  const SEG = 10, SIDES = 10;
  const tubeR = 0.01 * scale;
  const beams = (data.flex || []).map((f) => {
    const nn = f.nodes.length;
    const xyz = [];
    for (let k = 0; k < nn; k++) xyz.push(new Vector3(f.xyz[3 * k], f.xyz[3 * k + 1], f.xyz[3 * k + 2]));
    const elems = [];
    for (let e = 0; e + 1 < f.elements.length; e += 2) {
      const a = f.elements[e], b = f.elements[e + 1];
      const d = xyz[b].clone().sub(xyz[a]);
      elems.push({ a, b, L: d.length(), t0: d.normalize() });
    }
    const lit = hl === f.name;
    const mat = lit
      ? new MeshBasicMaterial({ color: MAGENTA, depthTest: false, depthWrite: false, side: DoubleSide })
      : new MeshLambertMaterial({ color: PALETTE[f.body % PALETTE.length], side: DoubleSide,
        vertexColors: opts.beam === 'deflection' });
    const np = elems.length * (SEG + 1);
    const geo = new BufferGeometry();
    geo.setAttribute('position', new BufferAttribute(new Float32Array(3 * np * SIDES), 3));
    geo.setAttribute('color', new BufferAttribute(new Float32Array(3 * np * SIDES), 3));
    const idx = [];
    for (let e = 0; e < elems.length; e++) {
      for (let i = 0; i < SEG; i++) {
        const p = e * (SEG + 1) + i;
        for (let k = 0; k < SIDES; k++) {
          const k1 = (k + 1) % SIDES;
          idx.push(p * SIDES + k, (p + 1) * SIDES + k, (p + 1) * SIDES + k1,
            p * SIDES + k, (p + 1) * SIDES + k1, p * SIDES + k1);
        }
      }
    }
    geo.setIndex(idx);
    const tube = new Mesh(geo, mat);
    if (lit) tube.renderOrder = 10;
    tube.frustumCulled = false;
    scene.add(tube);
    const dots = elems.length ? [] : f.nodes.map(() => {
      const m = meshOf({ kind: 'sphere', radius: 1.5 * r }, mat);
      scene.add(m);
      return m;
    });
    return { f, elems, tube, dots, xyz, np };
  });
  let deflMax = 0;

  // the centreline of beam bm at the current pose: points and deflections along it
  const hp = [new Vector3(), new Vector3(), new Vector3(), new Vector3()];
  function centreline(bm) {
    const pts = [], defl = [];
    const fr = groups[bm.f.body];
    const nodeDefl = bm.f.nodes.map((n, k) => groups[n].position.distanceTo(
      bm.xyz[k].clone().applyQuaternion(fr.quaternion).add(fr.position)));
    for (const el of bm.elems) {
      const ga = groups[bm.f.nodes[el.a]], gb = groups[bm.f.nodes[el.b]];
      hp[0].copy(el.t0).applyQuaternion(ga.quaternion).multiplyScalar(el.L);
      hp[1].copy(el.t0).applyQuaternion(gb.quaternion).multiplyScalar(el.L);
      for (let i = 0; i <= SEG; i++) {
        const x = i / SEG, x2 = x * x, x3 = x2 * x;
        // Hermite cubics: h00 = 2x³ − 3x² + 1, h10 = x³ − 2x² + x, h01 = 3x² − 2x³, h11 = x³ − x²
        const p = ga.position.clone().multiplyScalar(2 * x3 - 3 * x2 + 1)
          .addScaledVector(hp[0], x3 - 2 * x2 + x)
          .addScaledVector(gb.position, 3 * x2 - 2 * x3)
          .addScaledVector(hp[1], x3 - x2);
        pts.push(p);
        defl.push((1 - x) * nodeDefl[el.a] + x * nodeDefl[el.b]);
      }
    }
    return { pts, defl };
  }
  const side1 = new Vector3(), side2 = new Vector3(), tan = new Vector3(), col = new Color();
  function poseBeam(bm) {
    if (!bm.elems.length) {
      bm.dots.forEach((m, k) => m.position.copy(groups[bm.f.nodes[k]].position));
      return;
    }
    const { pts, defl } = centreline(bm);
    const pos = bm.tube.geometry.attributes.position;
    const colors = bm.tube.geometry.attributes.color;
    for (let i = 0; i < pts.length; i++) {
      const e0 = i - (i % (SEG + 1));
      const j0 = i === e0 ? i : i - 1, j1 = i === e0 ? i + 1 : i;
      tan.copy(pts[j1]).sub(pts[j0]).normalize();
      side1.set(0, 0, 1).cross(tan);
      if (side1.lengthSq() < 1e-6) side1.set(0, 1, 0).cross(tan);
      side1.normalize();
      side2.copy(tan).cross(side1).normalize();
      const u = deflMax > 0 ? Math.min(defl[i] / deflMax, 1) : 0;
      col.setHSL(0.66 * (1 - u), 0.8, 0.45);
      for (let k = 0; k < SIDES; k++) {
        const a = 2 * Math.PI * k / SIDES;
        const v = pts[i].clone().addScaledVector(side1, tubeR * Math.cos(a))
          .addScaledVector(side2, tubeR * Math.sin(a));
        pos.setXYZ(i * SIDES + k, v.x, v.y, v.z);
        colors.setXYZ(i * SIDES + k, col.r, col.g, col.b);
      }
    }
    pos.needsUpdate = true;
    colors.needsUpdate = true;
    bm.tube.geometry.computeVertexNormals();
  }

  // pose everything at time t
  const wp = [new Vector3(), new Vector3()];
  function setTime(t) {
    const [i, s] = locate(times, t);
    data.bodies.forEach((b, k) => poseOf(dim, b, i, s, groups[k].position, groups[k].quaternion));
    for (const { s: sp, line } of springs) {
      [[sp.body1, sp.at1], [sp.body2, sp.at2]].forEach(([bi, at], e) => {
        wp[e].copy(vec(at));
        if (bi >= 0) wp[e].applyQuaternion(groups[bi].quaternion).add(groups[bi].position);
      });
      const pos = line.geometry.attributes.position;
      const d = wp[1].clone().sub(wp[0]);
      const len = d.length();
      const side = new Vector3(0, 0, 1).cross(d);
      if (side.lengthSq() < 1e-12 * len * len) side.set(1, 0, 0).cross(d);
      side.normalize().multiplyScalar(Math.min(0.04 * scale, 0.15 * len));
      for (let k = 0; k < 26; k++) {
        const f = k / 25;
        const off = k === 0 || k === 25 ? 0 : (k % 2 ? 1 : -1);
        const x = wp[0].clone().addScaledVector(d, f).addScaledVector(side, off);
        pos.setXYZ(k, x.x, x.y, x.z);
      }
      pos.needsUpdate = true;
    }
    const upto = s > 0 ? i + 2 : i + 1;
    for (const line of traces) line.geometry.setDrawRange(0, upto);
    for (const { c, m } of pointMeshes) {
      m.position.set(lerpAt(c.x, i, s), lerpAt(c.y, i, s), c.z ? lerpAt(c.z, i, s) : 0);
      m.visible = [m.position.x, m.position.y, m.position.z].every(Number.isFinite);
    }
    for (const { c, dot, normal, friction } of contactMarks) {
      p.set(lerpAt(c.px, i, s), lerpAt(c.py, i, s), c.pz ? lerpAt(c.pz, i, s) : 0);
      dot.position.copy(p);
      dot.visible = [p.x, p.y, p.z].every(Number.isFinite);
      setArrow(normal, p, lerpAt(c.nx, i, s), lerpAt(c.ny, i, s), c.nz ? lerpAt(c.nz, i, s) : 0);
      setArrow(friction, p, lerpAt(c.fx, i, s), lerpAt(c.fy, i, s), c.fz ? lerpAt(c.fz, i, s) : 0);
    }
    for (const bm of beams) poseBeam(bm);
  }

  // the largest deflection of the run, for the colours (every sample, or 200 of them)
  if (opts.beam === 'deflection') {
    for (let i = 0; i < times.length; i += step) {
      setTime(times[i]);
      for (const bm of beams) if (bm.elems.length) deflMax = Math.max(deflMax, ...centreline(bm).defl);
    }
  }

  const legend = surfaces.map((sf) => `${sf.name} (${sf.kind}, ${sf.body >= 0
    ? data.bodies[sf.body].name : 'ground'})`);
  return { scene, setTime, center, scale, up, traceGroup, forceGroup, perMetre, legend, deflMax };
}

// ---------------------------------------------------------------------------------------------
// camera, controls, playback

function makeCamera(data, world, opts, aspect) {
  const { center, scale, up } = world;
  if (opts.view) {
    // an exact orthographic view down -z: x0..x1 across, y0..y1 up the page
    const [x0, x1, y0, y1] = opts.view.split(',').map(Number);
    const cx = 0.5 * (x0 + x1), cy = 0.5 * (y0 + y1);
    const cam = new OrthographicCamera(x0 - cx, x1 - cx, y1 - cy, y0 - cy, 0.01 * scale,
      100 * scale);
    if (opts.axes === 'xz') {
      // the x-z plane from -y: x right, z up
      cam.position.set(cx, -10 * scale, cy);
      cam.up.set(0, 0, 1);
      cam.lookAt(cx, 0, cy);
      return { cam, target: new Vector3(cx, 0, cy), fixed: true };
    }
    cam.position.set(cx, cy, 10 * scale);
    cam.up.set(0, 1, 0);
    cam.lookAt(cx, cy, 0);
    return { cam, target: new Vector3(cx, cy, 0), fixed: true };
  }
  if (data.dim === 2) {
    // planar: the x-y plane seen from +z, the whole motion in the frame
    const half = 0.6 * scale;
    const cam = new OrthographicCamera(-half * aspect, half * aspect, half, -half,
      0.01 * scale, 100 * scale);
    cam.position.set(center.x, center.y, 10 * scale);
    cam.up.set(0, 1, 0);
    cam.lookAt(center.x, center.y, 0);
    return { cam, target: new Vector3(center.x, center.y, 0) };
  }
  // spatial: an oblique view with "up" against gravity
  const cam = new PerspectiveCamera(40, aspect, 0.01 * scale, 100 * scale);
  const side = Math.abs(up.z) > 0.9 ? new Vector3(1, -1.4, 0) : new Vector3(1.2, 0, 1.6);
  const dir = side.normalize().addScaledVector(up, 0.55).normalize();
  cam.up.copy(up);
  cam.position.copy(center).addScaledVector(dir, 1.8 * scale);
  cam.lookAt(center);
  return { cam, target: center.clone() };
}

function main() {
  const opts = parseHash();
  if (opts.ui === '0') root.classList.add('noui');
  const data = readData();
  const times = data.t;
  const tEnd = times[times.length - 1];
  const view = document.getElementById('view');

  document.title = `${data.title} — mbd`;
  document.getElementById('title').textContent = data.title;
  const mf = data.manifest || {};
  document.getElementById('subtitle').textContent = [mf.formulation, mf.integrator,
    `t = 0 … ${tEnd.toPrecision(4)} s`, mf.program].filter(Boolean).join(' · ');

  let renderer;
  try {
    renderer = new WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  } catch (e) {
    root.dataset.mbdStatus = 'no-webgl';
    report(`WebGL is not available in this browser: ${e.message || e}`);
    return;
  }
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  const size = () => [view.clientWidth || window.innerWidth, view.clientHeight || window.innerHeight];
  renderer.setSize(...size());
  view.appendChild(renderer.domElement);

  const world = build(data, opts);
  if (world.legend.length) {
    document.getElementById('legend').textContent = `surfaces: ${world.legend.join(' · ')}`;
  }
  if (world.deflMax > 0) {
    document.getElementById('legend').textContent +=
      `${world.legend.length ? ' — ' : ''}beam colour: deflection 0 (blue) … ${world.deflMax.toPrecision(3)} m (red)`;
  }
  const [w0, h0] = size();
  const { cam, target, fixed } = makeCamera(data, world, opts, w0 / h0);
  const controls = new OrbitControls(cam, renderer.domElement);
  controls.target.copy(target);
  controls.enabled = !fixed;
  controls.update();

  // playback state: time, playing, speed
  let t = 0;
  let playing = !('t' in opts);
  if ('t' in opts) t = opts.t === 'end' ? tEnd : Math.min(Math.max(Number(opts.t) || 0, 0), tEnd);
  let speed = Number(opts.speed) || 1;
  const slider = document.getElementById('slider');
  const playBtn = document.getElementById('play');
  const timeLbl = document.getElementById('time');
  const speedSel = document.getElementById('speed');
  if ([...speedSel.options].some((o) => Number(o.value) === speed)) speedSel.value = String(speed);

  function show() {
    world.setTime(t);
    slider.value = String(Math.round(1000 * (tEnd > 0 ? t / tEnd : 0)));
    timeLbl.textContent = `t = ${t.toFixed(3)} s / ${tEnd.toFixed(3)} s`;
    playBtn.textContent = playing ? 'Pause' : 'Play';
    renderer.render(world.scene, cam);
  }
  playBtn.addEventListener('click', () => {
    if (!playing && t >= tEnd) t = 0;
    playing = !playing;
    last = performance.now();
    show();
  });
  slider.addEventListener('input', () => {
    playing = false;
    t = tEnd * Number(slider.value) / 1000;
    show();
  });
  speedSel.addEventListener('change', () => { speed = Number(speedSel.value); });
  const forcesBox = document.getElementById('forces');
  const forcesLbl = document.getElementById('forces-label');
  if (world.perMetre > 0) {
    forcesLbl.style.display = '';
    document.getElementById('force-scale').textContent =
      `(1 m = ${world.perMetre.toPrecision(3).replace(/\.?0+$/, '')} N)`;
    forcesBox.checked = opts.forces !== '0';
  }
  world.forceGroup.visible = world.perMetre > 0 && opts.forces !== '0';
  forcesBox.addEventListener('change', (e) => {
    world.forceGroup.visible = e.target.checked;
    show();
  });
  document.getElementById('traces').addEventListener('change', (e) => {
    world.traceGroup.visible = e.target.checked;
    show();
  });
  window.addEventListener('keydown', (e) => {
    if (e.code === 'Space') { playBtn.click(); e.preventDefault(); }
  });
  window.addEventListener('resize', () => {
    const [w, h] = size();
    renderer.setSize(w, h);
    if (cam.isPerspectiveCamera) {
      cam.aspect = w / h;
    } else if (!fixed) {
      const half = (cam.top - cam.bottom) / 2;
      cam.left = -half * w / h; cam.right = half * w / h;
    }
    cam.updateProjectionMatrix();
    show();
  });
  controls.addEventListener('change', () => renderer.render(world.scene, cam));

  // the first frame now, so a screenshot taken at load time shows it
  show();
  root.dataset.mbdStatus = 'ready';
  window.mbdViewer = { setTime: (x) => { playing = false; t = x; show(); }, data };

  let last = performance.now();
  function tick(now) {
    if (playing) {
      t += speed * (now - last) / 1000;
      if (t >= tEnd) { t = tEnd; playing = false; }
      show();
    }
    last = now;
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
}

try {
  main();
} catch (e) {
  root.dataset.mbdStatus = 'error';
  report(e && e.stack ? e.stack : e);
}
