// The page of mbd's run:animate: a 3-D replay of a run.  The run's data (docs/reference.md,
// "run:animate", describes the format) is a JSON object in the element #mbd-data; this script
// builds the scene once and poses it at any time of the run.
//
// Options after '#' in the address, for sharing a view and for the tests:
//   t=<seconds>|end   show that time, paused        speed=<factor>   playback speed
//   view=x0,x1,y0,y1  orthographic view down -z onto that rectangle of the x-y plane
//   highlight=<body>  that body drawn flat magenta (#ff00ff) over everything else
//   ui=0              no title and no controls
// The page reports on <html>: data-mbd-status ("ready", "no-webgl", "error") and
// data-mbd-errors (a JSON list of the error messages seen, "[]" when none).
import {
  AmbientLight, BoxGeometry, BufferAttribute, BufferGeometry, Color, CylinderGeometry,
  DirectionalLight, GridHelper, Group, Line, LineBasicMaterial, Mesh, MeshBasicMaterial,
  MeshLambertMaterial, OrthographicCamera, PerspectiveCamera, Quaternion, Scene, SphereGeometry,
  Vector3, WebGLRenderer,
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
  data.bodies.forEach((b, k) => {
    const g = new Group();
    g.name = b.name;
    const lit = hl === b.name;
    const mat = lit
      ? new MeshBasicMaterial({ color: MAGENTA, depthTest: false, depthWrite: false })
      : new MeshLambertMaterial({ color: PALETTE[k % PALETTE.length], transparent: true,
        opacity: 0.92 });
    const mesh = meshOf(shapeOf(data, b, scale), mat);
    if (lit) mesh.renderOrder = 10;
    g.add(mesh);
    scene.add(g);
    groups.push(g);
  });

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

  // points recorded as channels (contact points), and flexible bodies' nodes as polylines
  const pointMeshes = data.points.map((c) => {
    const m = meshOf({ kind: 'sphere', radius: 1.2 * r }, new MeshBasicMaterial({ color: 0xe02020 }));
    scene.add(m);
    return { c, m };
  });
  const flexLines = data.flex.map((f, k) => {
    const geo = new BufferGeometry();
    geo.setAttribute('position', new BufferAttribute(new Float32Array(3 * f.nodes.length), 3));
    const line = new Line(geo, new LineBasicMaterial({ color: PALETTE[k % PALETTE.length] }));
    scene.add(line);
    return { f, line };
  });

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
    for (const { f, line } of flexLines) {
      const pos = line.geometry.attributes.position;
      f.nodes.forEach((nd, k) => pos.setXYZ(k, lerpAt(nd.x, i, s), lerpAt(nd.y, i, s),
        nd.z ? lerpAt(nd.z, i, s) : 0));
      pos.needsUpdate = true;
    }
  }

  return { scene, setTime, center, scale, up, traceGroup };
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
