#!/bin/sh
# bundle_fresh.sh VIEWER: the committed page template VIEWER/dist/viewer.html was built from the
# committed sources.  viewer/build.mjs stamps the page with the sha256 of the files listed in
# VIEWER/sources.txt (concatenated in that order); this recomputes it with sha256sum, so CI (no
# npm) notices a source changed without `npm run build`.  Exit 0 when the stamp matches.
set -u
dir=$1
cd "$dir" || exit 2
sum=$(cat $(cat sources.txt) | sha256sum | cut -d' ' -f1)
if grep -q "mbd-viewer-sources: sha256 $sum" dist/viewer.html; then
  echo "dist/viewer.html is built from the current sources ($sum)"
  exit 0
fi
echo "dist/viewer.html was not built from the current sources (sha256 $sum):"
echo "  cd viewer && npm ci && npm run build, then commit dist/viewer.html"
exit 1
