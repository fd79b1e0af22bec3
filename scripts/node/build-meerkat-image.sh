#!/usr/bin/env bash
# Spike of issue #22 (docs/adr/0019-real-node-in-tests.md): builds the project's Dockerfile with buildah (no Docker
# engine here) on the local stand-in for node:20-bookworm-slim (scripts/node/build-base-image.sh), and writes it as an
# OCI archive for `ctr images import`:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/images/meerkat.oci.tar   named localhost/meerkat:dev
# CONTEXT (default: the repository) is the build context; `git archive HEAD | tar -x -C DIR` gives a clean one.
# The RUN steps use the host's network for `npm ci` (the npm registry is the only one reachable) and see the
# machine's npm cache through an overlay, so the Dockerfile's `npm cache clean --force` cannot empty it. Where the
# machine's npm trusts an extra CA (`npm config get cafile`, e.g. a TLS-inspecting egress proxy), the build's npm is
# given the same file through a mounted /root/.npmrc; nothing of it stays in the image.
# Rebuilds each time it runs; buildah's layer cache makes an unchanged rebuild quick. Root on Debian.
# Usage: [CONTEXT=DIR] bash scripts/node/build-meerkat-image.sh
set -euo pipefail
shopt -s inherit_errexit

readonly CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/meerkat"
readonly IMAGE_NAME=localhost/meerkat:dev
readonly ARCHIVE="$CACHE_ROOT/images/meerkat.oci.tar"
readonly BUILDAH=(buildah --root "$CACHE_ROOT/buildah/root" --runroot "$CACHE_ROOT/buildah/run" --storage-driver vfs)
readonly SCRIPTS_DIR=$(dirname "$(realpath "${BASH_SOURCE[0]}")")

say() { printf '[node:image] %s\n' "$*"; }

main() {
  local context=${CONTEXT:-$(realpath "$SCRIPTS_DIR/../..")}
  bash "$SCRIPTS_DIR/build-base-image.sh"
  local npm_cache="$HOME/.npm" volumes=()
  [[ -d $npm_cache ]] && volumes=(--volume "$npm_cache:/root/.npm:O")
  local cafile
  cafile=$(npm config get cafile 2>/dev/null || true)
  if [[ -f $cafile ]]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    printf 'cafile=/run/meerkat-build/ca.crt\n' >"$work/npmrc"
    volumes+=(--volume "$cafile:/run/meerkat-build/ca.crt:ro" --volume "$work/npmrc:/root/.npmrc:ro")
  fi
  local started=$SECONDS
  say "building $context/Dockerfile as $IMAGE_NAME"
  "${BUILDAH[@]}" build --layers --pull=never --network host "${volumes[@]}" \
    --file "$context/Dockerfile" --tag "$IMAGE_NAME" "$context"
  say "buildah build took $((SECONDS - started)) s"
  mkdir -p "$(dirname "$ARCHIVE")"
  "${BUILDAH[@]}" push --quiet "$IMAGE_NAME" "oci-archive:$ARCHIVE.partial:$IMAGE_NAME"
  mv "$ARCHIVE.partial" "$ARCHIVE"
  say "$IMAGE_NAME: $(du -h "$ARCHIVE" | cut -f1) archive in $ARCHIVE; total $((SECONDS - started)) s"
}

main "$@"
