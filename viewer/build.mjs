// Build the page template of run:animate: src/main.js with three.js (from node_modules, bundled
// and minified by esbuild) inlined into src/index.html, written to dist/viewer.html.  The template
// keeps the marker @MBD_DATA@ where run:animate puts the run's JSON.
//
//   npm ci && npm run build     rebuild dist/viewer.html (commit it: the C build embeds it, and
//                               CI, which has no npm, uses the committed file)
//   node build.mjs --check      exit 1 when dist/viewer.html was not built from the current sources
//
// The sources' fingerprint (sha256 of the files listed in sources.txt, concatenated in that
// order) is written into the page; tests/viewer/bundle_fresh.sh recomputes it with sha256sum.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const sources = readFileSync(join(here, 'sources.txt'), 'utf8').split('\n').filter(Boolean);
const hash = createHash('sha256');
for (const f of sources) hash.update(readFileSync(join(here, f)));
const fingerprint = hash.digest('hex');
const out = join(here, 'dist', 'viewer.html');
const stamp = `mbd-viewer-sources: sha256 ${fingerprint}`;

if (process.argv.includes('--check')) {
  let built = '';
  try { built = readFileSync(out, 'utf8'); } catch { /* missing */ }
  if (!built.includes(stamp)) {
    console.error('dist/viewer.html is not built from the current sources: run npm run build');
    process.exit(1);
  }
  console.log('dist/viewer.html is up to date');
  process.exit(0);
}

const esbuild = await import('esbuild');
const three = JSON.parse(readFileSync(join(here, 'node_modules/three/package.json'), 'utf8'));
const result = await esbuild.build({
  entryPoints: [join(here, 'src/main.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  legalComments: 'inline',
  write: false,
});
let js = result.outputFiles[0].text;
// inside <script>: no "</script", and the data marker must stay unique
js = js.replace(/<\/script/gi, '<\\/script');
if (js.includes('@MBD_DATA@')) throw new Error('the bundle contains the data marker');
const html = readFileSync(join(here, 'src/index.html'), 'utf8');
const parts = html.split('@MBD_VIEWER_JS@');
if (parts.length !== 2) throw new Error('src/index.html needs exactly one @MBD_VIEWER_JS@');
const head = `<!-- ${stamp}; three.js ${three.version} (MIT licence, (c) three.js authors) ` +
  'bundled by esbuild; rebuild with: cd viewer && npm ci && npm run build -->\n';
const page = parts[0].replace('<!DOCTYPE html>\n', `<!DOCTYPE html>\n${head}`) + js + parts[1];
if (page.split('@MBD_DATA@').length !== 2) throw new Error('the page needs exactly one @MBD_DATA@');
mkdirSync(join(here, 'dist'), { recursive: true });
writeFileSync(out, page);
console.log(`wrote dist/viewer.html (${page.length} bytes, three.js ${three.version})`);
