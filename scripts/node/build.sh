#!/usr/bin/env bash
# Everything the node tests (test/node, docs/testing.md) need besides the control plane, each step cached:
# the node's programs (kubelet, kube-scheduler, pause), the pause image, the base image and the Meerkat image.
# Installs runc, containerd, buildah and debootstrap when missing (root on Debian). Prints each step's time.
# Usage: npm run node:build   (after npm run kube:build; .ci/run runs both)
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:build
readonly NODE_DIR=$(dirname "$(realpath "${BASH_SOURCE[0]}")")
# shellcheck source=../kube/lib.sh
source "$NODE_DIR/../kube/lib.sh"

step() {
  local started=$SECONDS
  bash "$NODE_DIR/$1"
  say "$1: $((SECONDS - started)) s"
}

main() {
  local started=$SECONDS
  ensure_packages runc:runc containerd:containerd buildah:buildah debootstrap:debootstrap curl:curl
  # The Go build is CPU-bound; debootstrap and the image's npm ci mostly wait on the network: side by side, a cold
  # build takes about as long as the longer of the two rather than their sum.
  mkdir -p "$CACHE_ROOT"
  local log="$CACHE_ROOT/node-binaries-step.log"
  step build-node-binaries.sh >"$log" 2>&1 &
  # Global, since the EXIT trap runs after main's locals are gone: a failed image build stops the Go build too.
  binaries=$!
  trap 'kill "$binaries" 2>/dev/null || true' EXIT
  # build-meerkat-image.sh builds the base image first.
  step build-meerkat-image.sh
  if ! wait "$binaries"; then
    cat "$log" >&2
    fail 'building the node binaries failed'
  fi
  cat "$log" && rm -f "$log"
  step build-pause-image.sh
  say "node artefacts ready in $((SECONDS - started)) s"
}

main "$@"
