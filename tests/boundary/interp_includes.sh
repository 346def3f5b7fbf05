#!/bin/sh
# interp_includes.sh ROOT: the interpreter (ROOT/interp) reaches the engine through its public
# headers only.  Every #include of a file under interp/ must name a system header, a header of
# interp/ itself, or a public engine header engine/include/mbd/*.h; a private engine header
# (*_impl.h, or any other header under engine/ outside include/mbd/) is reported as FILE:LINE and
# the script exits 1.  Exit 0 when there is none.
set -u
root=$1
if [ ! -d "$root/interp" ] || [ ! -d "$root/engine" ]; then
  echo "usage: interp_includes.sh ROOT (with ROOT/interp and ROOT/engine)"
  exit 2
fi
root=$(cd "$root" && pwd -P)
list=$(mktemp)
trap 'rm -f "$list"' EXIT
# the names of the private engine headers (a name alone can reach them through an include path)
private=$(cd "$root/engine" && find . -name '*.h' ! -path './include/mbd/*' | sed 's|.*/||' |
  sort -u)
# every include as FILE:LINE:<NAME> or FILE:LINE:"NAME"
sp='[[:space:]]*'
find "$root/interp" -name '*.[ch]' | sort | while IFS= read -r f; do
  grep -n "^$sp#${sp}include" "$f" |
    sed -n "s|^\([0-9]*\):$sp#${sp}include$sp\([<\"][^>\"]*[>\"]\).*|$f:\1:\2|p"
done >"$list"

bad=0
report() {
  echo "${where#"$root"/}: includes $inc: $1"
  bad=$((bad + 1))
}
while IFS= read -r entry; do
  inc=${entry##*:}
  where=${entry%:*}
  file=${where%:*}
  name=$(printf '%s' "$inc" | sed 's/^[<"]//; s/[>"]$//')
  base=${name##*/}
  case $base in
    *_impl.h)
      report "a private engine header (*_impl.h)"
      continue
      ;;
  esac
  case $name in
    mbd/*)
      [ -f "$root/engine/include/$name" ] ||
        report "not a public engine header (engine/include/mbd/)"
      continue
      ;;
  esac
  # a path: resolve it from the including file's folder; inside engine/ only include/mbd/ is public
  case $name in
    */*)
      dir=$(cd "$(dirname "$file")" 2>/dev/null && cd "$(dirname "$name")" 2>/dev/null && pwd -P)
      case $dir in
        "$root/engine/include/mbd") ;;
        "$root/engine" | "$root/engine/"*)
          report "a private engine header (engine/ outside include/mbd/)"
          ;;
      esac
      continue
      ;;
  esac
  # a bare name: a header of interp/ itself, else it must not be a private engine header's name
  [ -f "$(dirname "$file")/$name" ] && continue
  if printf '%s\n' "$private" | grep -qxF "$base"; then
    report "the name of a private engine header"
  fi
done <"$list"

n=$(wc -l <"$list")
if [ "$bad" -gt 0 ]; then
  echo "$bad private engine include(s) in interp/ ($n includes read)"
  exit 1
fi
echo "ok: $n includes in interp/, none private to the engine"
