#!/usr/bin/env bash
# Shared by scripts/kube/build-binaries.sh (the four Kubernetes programs) and the scripts it serves:
# Debian's kubernetes v1.20.2 source tree, fetched through a private apt configuration and built offline with
# Debian's Go. Source it after setting LOG_PREFIX (e.g. kube:build); it defines functions and constants only.
# shellcheck shell=bash

readonly KUBE_VERSION=v1.20.2
# Debian's source package is versioned 1.20.5+really1.20.2; the orig tarball is the v1.20.2 tree.
readonly ORIG_TARBALL_SUFFIX="+really${KUBE_VERSION#v}.orig.tar.gz"
readonly DEBIAN_SUITE=bookworm
readonly REFLECT2_FIXED=/usr/share/gocode/src/github.com/modern-go/reflect2
readonly CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/meerkat"

# Progress goes to stderr: functions that print a result on stdout (prepare_tree, download_source) say things too.
say() { printf '[%s] %s\n' "$LOG_PREFIX" "$*" >&2; }
fail() {
  printf '[%s] error: %s\n' "$LOG_PREFIX" "$*" >&2
  exit 1
}
is_root_on_debian() { [[ $(id -u) -eq 0 && -f /etc/debian_version ]]; }

# True when DIR holds a VERSION file naming KUBE_VERSION and every named executable.
is_cached_in() {
  local dir=$1 binary
  shift
  [[ -f "$dir/VERSION" && "$(head -n1 "$dir/VERSION")" == "$KUBE_VERSION" ]] || return 1
  for binary in "$@"; do [[ -x "$dir/$binary" ]] || return 1; done
}

# Installs the Debian packages whose probe fails; as root on Debian only, otherwise names them and stops.
# Each argument is "package:probe", where the probe is a command name or an absolute path.
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
  is_root_on_debian || fail "missing ${missing[*]}; install them (Debian: apt-get install ${missing[*]}) and rerun"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Fresh containers often have no package lists; refreshing is slow, so only when the install needs it.
  apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >/dev/null 2>&1 ||
    { apt-get update -qq </dev/null && apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null; } ||
    fail "apt-get install ${missing[*]} failed"
}

# The first Debian archive the machine's apt already uses (deb822 .sources or one-line .list files).
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

# Downloads the orig tarball through a private apt configuration, so the machine's apt sources,
# package lists and caches stay untouched. Prints the tarball's path.
download_source() {
  local work=$1 apt_dir="$1/apt" signed_by=''
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/download"
  [[ -f /usr/share/keyrings/debian-archive-keyring.gpg ]] &&
    signed_by='[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] '
  printf 'deb-src %s%s %s main\n' "$signed_by" "$(debian_mirror)" "$DEBIAN_SUITE" >"$apt_dir/sources.list"
  local options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache")
  # apt's download sandbox user cannot write into our private directories; root may download itself.
  [[ $(id -u) -eq 0 ]] && options+=(-o APT::Sandbox::User=root)
  apt-get "${options[@]}" update -qq </dev/null >&2 || fail "apt-get update with $apt_dir/sources.list failed"
  (cd "$work/download" && apt-get "${options[@]}" source --download-only -qq kubernetes </dev/null >&2) ||
    fail "apt-get source kubernetes failed"
  local tarball
  tarball=$(find "$work/download" -maxdepth 1 -name "kubernetes_*$ORIG_TARBALL_SUFFIX" | head -n1)
  [[ -n $tarball ]] || fail "Debian's kubernetes source is no longer the $KUBE_VERSION tree: $(ls "$work/download")"
  printf '%s\n' "$tarball"
}

# The vendored reflect2 v1.0.1 crashes under Go 1.18+ (fatal error in mapiterinit on the first custom-resource
# write); Debian's v1.0.2 is a drop-in replacement.
apply_reflect2_fix() {
  local tree=$1 vendored="$1/vendor/github.com/modern-go/reflect2"
  find "$vendored" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) -delete
  find "$REFLECT2_FIXED" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' \) ! -name '*_test.go' \
    -exec cp -t "$vendored" {} +
  sed -i 's#github.com/modern-go/reflect2 v1.0.1#github.com/modern-go/reflect2 v1.0.2#g' \
    "$tree/go.mod" "$tree/vendor/modules.txt"
  grep -q 'modern-go/reflect2 v1.0.1' "$tree/go.mod" "$tree/vendor/modules.txt" &&
    fail 'the reflect2 fix did not apply'
  return 0
}

# Fetches and unpacks the tree into WORK with the reflect2 fix applied; prints the tree's path.
prepare_tree() {
  local work=$1 tarball
  ensure_packages golang-go:/usr/lib/go/bin/go make:make rsync:rsync "golang-github-modern-go-reflect2-dev:$REFLECT2_FIXED"
  command -v apt-get >/dev/null 2>&1 || fail "fetching Debian's kubernetes source package needs apt-get"
  tarball=$(download_source "$work")
  tar -xzf "$tarball" -C "$work"
  local tree="$work/kubernetes-${KUBE_VERSION#v}"
  [[ -f "$tree/Makefile" ]] || fail "unexpected layout in $(basename "$tarball")"
  apply_reflect2_fix "$tree"
  printf '%s\n' "$tree"
}

# Runs the tree's Makefile for WHAT with extra go flags (may be empty); output goes to LOG.
# The Makefile, not `go build`: it runs openapi-gen first, and module mode would want to update go.mod.
make_tree() {
  local tree=$1 home=$2 log=$3 what=$4 goflags=$5
  (
    cd "$tree"
    # Debian's Go first, whatever else is on PATH; no network, no host Go settings, a private HOME for the cache.
    # KUBE_STATIC_OVERRIDES puts kubelet among the static programs, so all four are one `go install`: otherwise
    # kubelet's own one, with other compiler flags (no -installsuffix static), compiles the shared packages again.
    env -u GOTOOLCHAIN -u GOPATH -u GOCACHE -u GOMODCACHE -u GOENV -u GOROOT \
      PATH="/usr/lib/go/bin:$PATH" HOME="$home" GOPROXY=off CGO_ENABLED=0 KUBE_STATIC_OVERRIDES=kubelet \
      make WHAT="$what" GOFLAGS="$goflags" GOLDFLAGS="-s -w"
  ) >"$log" 2>&1
}

# Writes DIR/VERSION: the version on the first line (is_cached_in reads it), then what it was built from.
write_version_file() {
  local dir=$1 extra=${2:-}
  {
    printf '%s\n' "$KUBE_VERSION"
    printf 'source: kubernetes_*%s (Debian %s)\n' "$ORIG_TARBALL_SUFFIX" "$DEBIAN_SUITE"
    printf 'go: %s\n' "$(PATH="/usr/lib/go/bin:$PATH" go version)"
    [[ -z $extra ]] || printf '%s\n' "$extra"
  } >"$dir/VERSION"
}
