#!/usr/bin/env bash
# The Debian packages the test suite's tiers run or build with (docs/testing.md#provisioning). Installs the missing
# ones in one apt-get call when root on Debian; elsewhere names them and goes on (the tiers that need them fail
# saying what is missing). DATABASE_URL/REDIS_URL select existing servers, so PostgreSQL/Redis are not needed then.
# Usage: bash scripts/system-packages.sh   (scripts/provision.sh runs it)
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=provision
# shellcheck source=kube/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/kube/lib.sh"

readonly GOCODE=/usr/share/gocode/src/github.com
# "package:probe": a command name or an absolute path that the package provides.
readonly PACKAGES=(
  # promtool checks the live metrics scrape and the alerting rules (test/metrics).
  prometheus:promtool
  # The console's browser tests (test/console) drive Debian's Chromium through playwright-core.
  chromium:/usr/bin/chromium
  # The Kubernetes tier's cluster (test/kube).
  etcd-server:etcd openssl:openssl
  # The Argo CD health script docs/operator.md documents (test/operator/operator-readiness.kube.test.ts).
  lua5.4:lua5.4
  # The node tier (test/node): pods through containerd and runc, images built with buildah on a debootstrap'd base.
  runc:runc containerd:containerd buildah:buildah debootstrap:debootstrap curl:curl
  # Building Kubernetes (scripts/kube/build-binaries.sh) and the pause program.
  golang-go:/usr/lib/go/bin/go make:make rsync:rsync "golang-github-modern-go-reflect2-dev:$GOCODE/modern-go/reflect2"
  gcc:gcc libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a
  # The chart renderer (test/chart/build-renderer.sh).
  "golang-github-masterminds-sprig-dev:$GOCODE/Masterminds/sprig"
  "golang-github-ghodss-yaml-dev:$GOCODE/ghodss/yaml"
  "golang-github-xeipuuv-gojsonschema-dev:$GOCODE/xeipuuv/gojsonschema"
)

has_postgres_server() {
  command -v postgres >/dev/null 2>&1 && command -v initdb >/dev/null 2>&1 && return 0
  local dir
  for dir in /usr/lib/postgresql/*/bin; do [[ -x "$dir/postgres" && -x "$dir/initdb" ]] && return 0; done
  return 1
}

main() {
  local wanted=("${PACKAGES[@]}")
  # The test harness starts throwaway PostgreSQL and Redis servers unless DATABASE_URL/REDIS_URL are set.
  [[ -n ${DATABASE_URL:-} ]] || has_postgres_server || wanted+=(postgresql:/nonexistent)
  [[ -n ${REDIS_URL:-} ]] || wanted+=(redis-server:redis-server)
  if is_root_on_debian; then
    ensure_packages "${wanted[@]}"
  else
    ensure_packages "${wanted[@]}" 2>&1 | sed 's/ error:/ warning:/' >&2 || true
  fi
}

main "$@"
