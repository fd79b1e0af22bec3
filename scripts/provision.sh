#!/usr/bin/env bash
# Everything the test suite's tiers need that npm ci does not install (docs/testing.md#provisioning), each step
# cached so a warm run returns in seconds: system packages (root on Debian), the Kubernetes programs, the node's
# images and the chart renderer. `npm test` runs it first (the `pretest` script), and so does .ci/run through it.
# Each step prints a line with its expected cold time before it starts and its measured time when it ends.
# The CPU-bound Go build runs beside the network-bound image builds (debootstrap, npm ci), so a cold run takes
# about as long as the longer of the two (docs/adr/0030-cold-provisioning.md).
# Usage: npm run provision   (or: bash scripts/provision.sh)
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=provision
readonly SCRIPTS_DIR=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
readonly REPO_DIR=$(dirname "$SCRIPTS_DIR")
# shellcheck source=kube/lib.sh
source "$SCRIPTS_DIR/kube/lib.sh"

# Runs a step script: announces it with its expected cold time, then reports how long it took.
run_step() {
  local name=$1 expected=$2 started=$SECONDS
  shift 2
  say "$name: starting (cold about $expected on 2 cores; seconds when cached)"
  if ! "$@"; then
    say "$name: failed after $((SECONDS - started)) s"
    return 1
  fi
  say "$name: done in $((SECONDS - started)) s"
}

# The CPU-bound lane: one make for the four Kubernetes programs, then the chart renderer (also Go).
cpu_lane() {
  run_step 'Kubernetes programs (kube-apiserver, kube-controller-manager, kubelet, kube-scheduler, pause)' \
    '20 min' bash "$SCRIPTS_DIR/kube/build-binaries.sh"
  run_step 'chart renderer (Go text/template + Sprig)' '1 min' \
    bash -c 'bash "$1" >/dev/null' _ "$REPO_DIR/test/chart/build-renderer.sh"
}

# The network-bound lane: the base image (debootstrap) and the Meerkat image (npm ci inside it).
image_lane() {
  run_step 'base image (debootstrap bookworm + Node 20)' '5 min' bash "$SCRIPTS_DIR/node/build-base-image.sh"
  run_step "Meerkat image (the Dockerfile of $(git -C "$REPO_DIR" rev-parse --short HEAD))" '12 min' \
    bash "$SCRIPTS_DIR/node/build-meerkat-image.sh"
}

main() {
  local started=$SECONDS
  mkdir -p "$CACHE_ROOT"
  run_step 'system packages' '3 min' bash "$SCRIPTS_DIR/system-packages.sh"
  if ! is_root_on_debian; then
    say 'not root on Debian: the Kubernetes and node tiers cannot be provisioned here (docs/testing.md)'
    return 0
  fi
  # Both lanes print as they go: every line names its step.
  cpu_lane &
  # Global, since the EXIT trap runs after main's locals are gone: a failed image step stops the Go build too.
  cpu_pid=$!
  trap 'kill "$cpu_pid" 2>/dev/null || true' EXIT
  image_lane
  wait "$cpu_pid" || fail 'building the Kubernetes programs or the chart renderer failed'
  trap - EXIT
  run_step 'pause image' '30 s' bash "$SCRIPTS_DIR/node/build-pause-image.sh"
  say "ready in $((SECONDS - started)) s"
}

main "$@"
