#!/usr/bin/env bash
# Builds test/chart/renderer (Go text/template + Sprig, as Helm renders charts) from Debian's Go packages, offline,
# and prints the binary's path. Cached outside the repository, keyed by the source's hash; see
# docs/adr/0008-chart-rendering-in-tests.md. Usage: bash test/chart/build-renderer.sh
set -euo pipefail

readonly SOURCE_DIR=$(cd "$(dirname "$0")/renderer" && pwd)
readonly GOPATH_DEBIAN=/usr/share/gocode
readonly PACKAGES=(
  "golang-go:go"
  "golang-github-masterminds-sprig-dev:$GOPATH_DEBIAN/src/github.com/Masterminds/sprig"
  "golang-github-ghodss-yaml-dev:$GOPATH_DEBIAN/src/github.com/ghodss/yaml"
  "golang-github-xeipuuv-gojsonschema-dev:$GOPATH_DEBIAN/src/github.com/xeipuuv/gojsonschema"
)

missing=()
for entry in "${PACKAGES[@]}"; do
  package=${entry%%:*} probe=${entry#*:}
  if [[ $probe == /* ]]; then [[ -e $probe ]] || missing+=("$package"); else command -v "$probe" >/dev/null || missing+=("$package"); fi
done
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 || ! -f /etc/debian_version ]]; then
    echo "chart renderer: missing ${missing[*]} (Debian: apt-get install ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null 2>&1 ||
    { apt-get update -qq </dev/null >/dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null; }
fi

hash=$(cat "$SOURCE_DIR"/*.go | sha256sum | cut -c1-16)
readonly CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/meerkat/chart-render-$hash"
if [[ ! -x $CACHE_DIR/chart-render ]]; then
  mkdir -p "$CACHE_DIR"
  # GOPATH mode against Debian's source packages: no module download, no network.
  (cd "$SOURCE_DIR" && env -u GOFLAGS -u GOTOOLCHAIN GO111MODULE=off GOPATH="$GOPATH_DEBIAN" GOPROXY=off \
    GOCACHE="$CACHE_DIR/gocache" CGO_ENABLED=0 go build -o "$CACHE_DIR/chart-render.partial" .)
  mv "$CACHE_DIR/chart-render.partial" "$CACHE_DIR/chart-render"
  rm -rf "$CACHE_DIR/gocache"
fi
echo "$CACHE_DIR/chart-render"
