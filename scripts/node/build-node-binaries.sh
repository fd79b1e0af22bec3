#!/usr/bin/env bash
# Spike of issue #22 (docs/adr/0019-real-node-in-tests.md): builds kubelet and kube-scheduler v1.20.2 from the same
# Debian source tree as scripts/kube/build-binaries.sh, plus the pod sandbox ("pause") program from that tree's
# build/pause/linux/pause.c, and caches them in a directory of their own, beside the control plane's:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/kubernetes-v1.20.2-node/{kubelet,kube-scheduler,pause,VERSION}
# The control plane's cache directory is never touched (its build script removes it whole when it rebuilds).
# Idempotent: returns at once when the cache is complete; concurrent runs wait for each other.
# Root on Debian: installs what it needs with apt-get. Set KEEP_SOURCE=DIR to keep the extracted tree there.
# Usage: bash scripts/node/build-node-binaries.sh
set -euo pipefail
shopt -s inherit_errexit

readonly KUBE_VERSION=v1.20.2
readonly ORIG_TARBALL_SUFFIX="+really${KUBE_VERSION#v}.orig.tar.gz"
readonly DEBIAN_SUITE=bookworm
readonly BINARIES=(kubelet kube-scheduler pause)
readonly REFLECT2_FIXED=/usr/share/gocode/src/github.com/modern-go/reflect2
readonly CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/meerkat"
readonly CACHE_DIR="$CACHE_ROOT/kubernetes-$KUBE_VERSION-node"

say() { printf '[node:build] %s\n' "$*"; }
fail() {
  printf '[node:build] error: %s\n' "$*" >&2
  exit 1
}

is_cached() {
  [[ -f "$CACHE_DIR/VERSION" && "$(head -n1 "$CACHE_DIR/VERSION")" == "$KUBE_VERSION" ]] || return 1
  local binary
  for binary in "${BINARIES[@]}"; do [[ -x "$CACHE_DIR/$binary" ]] || return 1; done
}

ensure_packages() {
  local entry missing=()
  for entry in "$@"; do
    local package=${entry%%:*} probe=${entry#*:}
    if [[ $probe == /* ]]; then
      [[ -e $probe ]] || missing+=("$package")
    else
      command -v "$probe" >/dev/null 2>&1 || missing+=("$package")
    fi
  done
  ((${#missing[@]} == 0)) && return 0
  [[ $(id -u) -eq 0 && -f /etc/debian_version ]] || fail "missing ${missing[*]}; apt-get install them and rerun"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null 2>&1 ||
    { apt-get update -qq </dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null; } ||
    fail "apt-get install ${missing[*]} failed"
}

debian_mirror() {
  local mirror
  mirror=$(
    {
      sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | tr ' ' '\n'
      sed -nE 's/^deb(-src)?[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\3/p' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null
    } | grep -E '/debian/?$' | head -n1 || true
  )
  printf '%s\n' "${mirror:-http://deb.debian.org/debian}"
}

# Same private apt configuration as scripts/kube/build-binaries.sh: the machine's apt state stays untouched.
download_source() {
  local work=$1 apt_dir="$1/apt" signed_by=''
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/download"
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] &&
    signed_by='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] '
  printf 'deb-src %s%s %s main\n' "$signed_by" "$(debian_mirror)" "$DEBIAN_SUITE" >"$apt_dir/sources.list"
  local options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
  apt-get "${options[@]}" update -qq </dev/null >&2 || fail "apt-get update with $apt_dir/sources.list failed"
  (cd "$work/download" && apt-get "${options[@]}" source --download-only -qq kubernetes </dev/null >&2) ||
    fail "apt-get source kubernetes failed"
  local tarball
  tarball=$(find "$work/download" -maxdepth 1 -name "kubernetes_*$ORIG_TARBALL_SUFFIX" | head -n1)
  [[ -n $tarball ]] || fail "Debian's kubernetes source is no longer the $KUBE_VERSION tree: $(ls "$work/download")"
  printf '%s\n' "$tarball"
}

# The vendored reflect2 v1.0.1 crashes under Go 1.18+; Debian's v1.0.2 is a drop-in replacement.
apply_reflect2_fix() {
  local tree=$1 vendored="$1/vendor/github.com/modern-go/reflect2"
  find "$vendored" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) -delete
  find "$REFLECT2_FIXED" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) ! -name '*_test.go' \
    -exec cp -t "$vendored" {} +
  sed -i 's#github.com/modern-go/reflect2 v1.0.1#github.com/modern-go/reflect2 v1.0.2#g' \
    "$tree/go.mod" "$tree/vendor/modules.txt"
  if grep -q 'modern-go/reflect2 v1.0.1' "$tree/go.mod" "$tree/vendor/modules.txt"; then
    fail 'the reflect2 fix did not apply'
  fi
}

# kubelet is not in the tree's list of static binaries, so the Makefile builds it with the environment's
# CGO_ENABLED; 0 makes it a static pure-Go binary like the others (cadvisor's cgo-only parts are not needed here).
build_tree() {
  local tree=$1 home=$2 log=$3
  (
    cd "$tree"
    env -u GOTOOLCHAIN -u GOPATH -u GOCACHE -u GOMODCACHE -u GOENV -u GOROOT \
      PATH="/usr/lib/go/bin:$PATH" HOME="$home" GOPROXY=off GOFLAGS= CGO_ENABLED=0 \
      make WHAT="cmd/kubelet cmd/kube-scheduler" GOLDFLAGS="-s -w"
    # The upstream pause container's program: sleeps as PID 1 and reaps zombies. Static, so it runs from scratch.
    gcc -Os -Wall -Werror -static -DVERSION="$KUBE_VERSION" -o _output/bin/pause build/pause/linux/pause.c
  ) >"$log" 2>&1
}

main() {
  mkdir -p "$CACHE_ROOT"
  if is_cached; then
    say "kubelet, kube-scheduler and pause $KUBE_VERSION are cached in $CACHE_DIR"
    return 0
  fi
  exec 9>"$CACHE_DIR.lock"
  flock -n 9 || { say 'another build is running; waiting for it' && flock 9; }
  if is_cached; then
    say "kubelet, kube-scheduler and pause $KUBE_VERSION are cached in $CACHE_DIR"
    return 0
  fi

  ensure_packages golang-go:/usr/lib/go/bin/go make:make rsync:rsync gcc:gcc libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a \
    "golang-github-modern-go-reflect2-dev:$REFLECT2_FIXED"
  work=$(mktemp -d "$CACHE_ROOT/.build-$KUBE_VERSION-node.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  local started=$SECONDS
  say "fetching the $KUBE_VERSION source through a private apt configuration"
  local tarball
  tarball=$(download_source "$work")
  tar -xzf "$tarball" -C "$work"
  local tree="$work/kubernetes-${KUBE_VERSION#v}"
  [[ -f "$tree/Makefile" ]] || fail "unexpected layout in $(basename "$tarball")"
  apply_reflect2_fix "$tree"
  say "source ready after $((SECONDS - started)) s; building ${BINARIES[*]}"

  local log="$CACHE_DIR-build.log" build_started=$SECONDS
  mkdir -p "$work/home"
  if ! build_tree "$tree" "$work/home" "$log"; then
    tail -n 40 "$log" >&2
    fail "build failed; full log in $log"
  fi
  say "make and gcc took $((SECONDS - build_started)) s"

  local out="$work/kubernetes-$KUBE_VERSION-node" binary
  mkdir "$out"
  for binary in "${BINARIES[@]}"; do cp -L "$tree/_output/bin/$binary" "$out/$binary"; done
  "$out/kubelet" --version | grep -qF "Kubernetes $KUBE_VERSION" || fail "the built kubelet does not report $KUBE_VERSION"
  {
    printf '%s\n' "$KUBE_VERSION"
    printf 'source: %s\n' "$(basename "$tarball")"
    printf 'go: %s\n' "$(PATH="/usr/lib/go/bin:$PATH" go version)"
  } >"$out/VERSION"
  if [[ -n ${KEEP_SOURCE:-} ]]; then
    rm -rf "$KEEP_SOURCE" && mkdir -p "$(dirname "$KEEP_SOURCE")" && mv -T "$tree" "$KEEP_SOURCE"
    say "source tree kept in $KEEP_SOURCE"
  fi
  rm -rf "$CACHE_DIR"
  mv -T "$out" "$CACHE_DIR"
  rm -f "$log"
  say "built and cached in $CACHE_DIR in $((SECONDS - started)) s"
}

main "$@"
