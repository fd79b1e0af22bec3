#!/usr/bin/env bash
# The node tests' (docs/adr/0019-real-node-in-tests.md) pod sandbox ("pause") image, built from scratch
# with buildah since no registry can be reached. It holds only the static pause program that
# scripts/kube/build-binaries.sh builds, and is written as an OCI archive for `ctr images import`:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/images/pause-v1.20.2.oci.tar   named localhost/meerkat-pause:v1.20.2
# buildah keeps its own storage (vfs driver, no overlay mount needed) under the cache root, apart from the
# machine's /var/lib/containers. Idempotent: returns at once when the archive exists.
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:pause
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly PAUSE_BINARY="${PAUSE_BINARY:-$CACHE_ROOT/kubernetes-$KUBE_VERSION-node/pause}"
readonly IMAGE_NAME="localhost/meerkat-pause:$KUBE_VERSION"
readonly ARCHIVE="$IMAGES_DIR/pause-$KUBE_VERSION.oci.tar"

main() {
  if [[ -s $ARCHIVE ]]; then
    say "$IMAGE_NAME is cached in $ARCHIVE"
    return 0
  fi
  [[ -x $PAUSE_BINARY ]] || fail "no $PAUSE_BINARY: run npm run provision first"
  ensure_packages buildah:buildah
  local started=$SECONDS
  # Global, since the EXIT trap runs after main's locals are gone.
  container=$("${BUILDAH[@]}" from scratch)
  trap '"${BUILDAH[@]}" rm "$container" >/dev/null' EXIT
  "${BUILDAH[@]}" copy --chmod 0755 "$container" "$PAUSE_BINARY" /pause >/dev/null
  # 65535 is the upstream pause image's user: the sandbox needs no privilege.
  "${BUILDAH[@]}" config --entrypoint '["/pause"]' --cmd '' --user 65535:65535 "$container"
  "${BUILDAH[@]}" commit --quiet "$container" "$IMAGE_NAME" >/dev/null
  push_archive "$IMAGE_NAME" "$ARCHIVE"
  say "built $IMAGE_NAME into $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1)) in $((SECONDS - started)) s"
}

main "$@"
