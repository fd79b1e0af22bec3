#!/usr/bin/env bash
# For the node tests (docs/adr/0019-real-node-in-tests.md): a stand-in for the Dockerfile's `node:20-bookworm-slim`,
# which no registry here serves. Debian bookworm's minimal userland (debootstrap --variant=minbase, from the Debian
# archive the machine's apt uses) plus this machine's own Node.js 20 (the installed `nodejs` package's node binary
# and npm): the same Debian release and Node major as the upstream image, and the same tools the Dockerfile
# uses (node, npm, groupadd, useradd). Written as an OCI archive and kept in buildah's private store under two names:
#   localhost/meerkat-node-base:20-bookworm   and   docker.io/library/node:20-bookworm-slim
# the second so that the Dockerfile's unchanged FROM line resolves to it without a pull.
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/images/node-base-20-bookworm.oci.tar
# Idempotent: returns at once when the archive exists. Root on Debian.
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:base
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly IMAGE_NAME=localhost/meerkat-node-base:20-bookworm
readonly UPSTREAM_NAME=docker.io/library/node:20-bookworm-slim
readonly ARCHIVE="$IMAGES_DIR/node-base-20-bookworm.oci.tar"

# The machine's nodejs package's runtime: /usr/bin/node and npm's tree, with npm and npx linked as the package does.
copy_machine_node() {
  local rootfs=$1
  node --version | grep -q '^v20\.' || fail "this machine's node is $(node --version), not 20"
  tar -C / -cf - usr/bin/node usr/lib/node_modules/npm | tar -C "$rootfs" -xf -
  ln -sfn ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/bin/npm"
  ln -sfn ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/bin/npx"
}

main() {
  if [[ -s $ARCHIVE ]]; then
    say "$IMAGE_NAME is cached in $ARCHIVE"
    "${BUILDAH[@]}" inspect --type image "$IMAGE_NAME" >/dev/null 2>&1 ||
      "${BUILDAH[@]}" pull --quiet "oci-archive:$ARCHIVE" >/dev/null
    "${BUILDAH[@]}" tag "$IMAGE_NAME" "$UPSTREAM_NAME"
    return 0
  fi
  ensure_packages debootstrap:debootstrap buildah:buildah
  work=$(mktemp -d "$CACHE_ROOT/.build-node-base.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  local started=$SECONDS rootfs="$work/rootfs"
  say "debootstrap --variant=minbase bookworm from $(debian_mirror)"
  # The downloaded packages are kept, so a rebuild does not fetch them again.
  mkdir -p "$CACHE_ROOT/debootstrap-bookworm"
  debootstrap --variant=minbase --cache-dir="$CACHE_ROOT/debootstrap-bookworm" bookworm "$rootfs" "$(debian_mirror)" \
    >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2 && fail 'debootstrap failed'; }
  say "debootstrap took $((SECONDS - started)) s"
  copy_machine_node "$rootfs"
  # What the upstream slim image leaves out as well: package lists, caches, docs.
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*
  tar --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -C "$rootfs" -cf "$work/rootfs.tar" .

  container=$("${BUILDAH[@]}" from scratch)
  trap '"${BUILDAH[@]}" rm "$container" >/dev/null; rm -rf "$work"' EXIT
  "${BUILDAH[@]}" add "$container" "$work/rootfs.tar" / >/dev/null
  "${BUILDAH[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --cmd node --label org.opencontainers.image.description="Debian bookworm minbase + Node.js $(node --version)" \
    "$container"
  "${BUILDAH[@]}" commit --quiet "$container" "$IMAGE_NAME" >/dev/null
  "${BUILDAH[@]}" tag "$IMAGE_NAME" "$UPSTREAM_NAME"
  push_archive "$IMAGE_NAME" "$ARCHIVE"
  say "built $IMAGE_NAME in $((SECONDS - started)) s: $(du -h "$ARCHIVE" | cut -f1) in $ARCHIVE"
}

main "$@"
