#!/usr/bin/env bash
# Shared by the node's image scripts (build-pause-image.sh, build-base-image.sh, build-meerkat-image.sh): the
# Kubernetes constants and helpers of scripts/kube/lib.sh, and buildah with a private store under the cache root.
# Source it after setting LOG_PREFIX.
# shellcheck shell=bash

# shellcheck source=../kube/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../kube/lib.sh"

readonly IMAGES_DIR="$CACHE_ROOT/images"
# vfs needs no overlay mount (buildah's overlay driver wants one inside this container); the store is kept apart
# from the machine's /var/lib/containers so that nothing else's images mix with ours.
readonly BUILDAH=(buildah --root "$CACHE_ROOT/buildah/root" --runroot "$CACHE_ROOT/buildah/run" --storage-driver vfs)

# Writes IMAGE from buildah's store to ARCHIVE as an OCI archive; the archive's ref.name is IMAGE, which
# `ctr images import` takes as the full image name. Written aside and renamed, so a cut-off push leaves no archive.
push_archive() {
  local image=$1 archive=$2
  mkdir -p "$(dirname "$archive")"
  rm -f "$archive.partial"
  "${BUILDAH[@]}" push --quiet "$image" "oci-archive:$archive.partial:$image"
  mv "$archive.partial" "$archive"
}
