# sourced by the install checks: `need TOOL...` exits 77 (ctest: skipped) unless every TOOL is on
# PATH; `scratch` sets $work to a fresh folder removed when the check exits.
need() {
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "SKIP: $tool not found (bash scripts/setup.sh --deps installs it)"
      exit 77
    fi
  done
}
scratch() {
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
