#!/usr/bin/env bash
# Spike of issue #22 (docs/adr/0019-real-node-in-tests.md): the pod sandbox ("pause") image, built from scratch
# with buildah since no registry can be reached. It holds only the static pause program that
# scripts/node/build-node-binaries.sh builds, and is written as an OCI archive for `ctr images import`:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/images/pause-v1.20.2.oci.tar   named localhost/meerkat-pause:v1.20.2
# buildah keeps its own storage (vfs driver, no overlay mount needed) under the cache root, apart from the
# machine's /var/lib/containers. Idempotent: returns at once when the archive exists.
set -euo pipefail
shopt -s inherit_errexit

readonly KUBE_VERSION=v1.20.2
readonly CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/meerkat"
readonly PAUSE_BINARY="${PAUSE_BINARY:-$CACHE_ROOT/kubernetes-$KUBE_VERSION-node/pause}"
readonly IMAGE_NAME="localhost/meerkat-pause:$KUBE_VERSION"
readonly ARCHIVE="$CACHE_ROOT/images/pause-$KUBE_VERSION.oci.tar"
readonly BUILDAH=(buildah --root "$CACHE_ROOT/buildah/root" --runroot "$CACHE_ROOT/buildah/run" --storage-driver vfs)

say() { printf '[node:pause] %s\n' "$*"; }

main() {
  if [[ -s $ARCHIVE ]]; then
    say "$IMAGE_NAME is cached in $ARCHIVE"
    return 0
  fi
  [[ -x $PAUSE_BINARY ]] || { say "no $PAUSE_BINARY: run scripts/node/build-node-binaries.sh first" >&2 && exit 1; }
  command -v buildah >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq buildah </dev/null
  mkdir -p "$(dirname "$ARCHIVE")"
  # Global, since the EXIT trap runs after main's locals are gone.
  container=$("${BUILDAH[@]}" from scratch)
  trap '"${BUILDAH[@]}" rm "$container" >/dev/null' EXIT
  "${BUILDAH[@]}" copy --chmod 0755 "$container" "$PAUSE_BINARY" /pause >/dev/null
  # 65535 is the upstream pause image's user: the sandbox needs no privilege.
  "${BUILDAH[@]}" config --entrypoint '["/pause"]' --cmd '' --user 65535:65535 "$container"
  "${BUILDAH[@]}" commit --quiet "$container" "$IMAGE_NAME" >/dev/null
  "${BUILDAH[@]}" push --quiet "$IMAGE_NAME" "oci-archive:$ARCHIVE.partial:$IMAGE_NAME"
  mv "$ARCHIVE.partial" "$ARCHIVE"
  say "built $IMAGE_NAME into $ARCHIVE ($(du -h "$ARCHIVE" | cut -f1))"
}

main "$@"
