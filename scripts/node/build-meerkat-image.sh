#!/usr/bin/env bash
# For the node tests (docs/adr/0019-real-node-in-tests.md): builds the project's Dockerfile with buildah (no Docker
# engine here) on the local stand-in for node:20-bookworm-slim (build-base-image.sh), from a clean context (`git
# archive` of REV, default HEAD: colleagues' half-done edits in the working tree stay out), and writes it as an OCI
# archive for `ctr images import`:
#   ${XDG_CACHE_HOME:-~/.cache}/meerkat/images/meerkat.oci.tar   named localhost/meerkat:dev
# Cached by a hash of its inputs: the Dockerfile, every path its COPY lines take from the context, and the base
# image. An unchanged tree costs nothing; a changed one rebuilds with buildah's layer cache (npm ci is kept while
# the package files are unchanged). Images a previous build left dangling are removed after a build: buildah's vfs
# store copies every layer whole, so each rebuild otherwise kept about 1 GB (a long-lived machine filled its disk).
# The RUN steps use the host's network for `npm ci` (the npm registry is the only one reachable) and see the
# machine's npm cache through an overlay, so the Dockerfile's `npm cache clean --force` cannot empty it. Where the
# machine's npm trusts an extra CA (`npm config get cafile`, e.g. a TLS-inspecting egress proxy), the build's npm is
# given the same file through a mounted /root/.npmrc; nothing of it stays in the image. Root on Debian.
# Usage: [REV=commit] bash scripts/node/build-meerkat-image.sh
set -euo pipefail
shopt -s inherit_errexit

readonly LOG_PREFIX=node:image
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

readonly IMAGE_NAME=localhost/meerkat:dev
readonly ARCHIVE="$IMAGES_DIR/meerkat.oci.tar"
readonly BASE_ARCHIVE="$IMAGES_DIR/node-base-20-bookworm.oci.tar"
readonly REPO_DIR=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../..")
readonly REV=${REV:-HEAD}

# The context paths the Dockerfile at REV copies (COPY lines without --from; the last word is the destination).
copied_paths() {
  git -C "$REPO_DIR" show "$REV:Dockerfile" |
    awk '$1 == "COPY" && $2 !~ /^--from=/ { for (i = 2; i < NF; i++) print $i }' | sort -u
}

# Blob ids of every input at REV plus the base archive's digest: any change to what the build reads changes it.
inputs_key() {
  local paths
  mapfile -t paths < <(copied_paths)
  {
    git -C "$REPO_DIR" ls-tree -r "$REV" -- Dockerfile "${paths[@]}"
    sha256sum "$BASE_ARCHIVE" | cut -d' ' -f1
  } | sha256sum | cut -d' ' -f1
}

# Removes the untagged images earlier builds left: the previous localhost/meerkat:dev and its stages. An image this
# build made or took from its layer cache stays (its id is on a `-->` line of BUILD_LOG, shortened to 11 characters:
# e.g. the production-deps stage while the package files are unchanged), and so do the layers the new images use.
remove_earlier_dangling_images() {
  local build_log=$1 id
  local -A used=()
  while read -r id; do
    used[${id:0:11}]=1
  done < <(awk '$1 == "-->" { print $NF }' "$build_log")
  while read -r id; do
    [[ -n ${used[${id:0:11}]:-} ]] && continue
    "${BUILDAH[@]}" rmi "$id" >/dev/null 2>&1 || say "could not remove the dangling image $id; left in place"
  done < <("${BUILDAH[@]}" images --filter dangling=true --noheading --format '{{.ID}}')
}

main() {
  bash "$(dirname "${BASH_SOURCE[0]}")/build-base-image.sh"
  local key
  key=$(inputs_key)
  if [[ -s $ARCHIVE && "$(cat "$ARCHIVE.key" 2>/dev/null)" == "$key" ]]; then
    say "$IMAGE_NAME is cached in $ARCHIVE (inputs $(git -C "$REPO_DIR" rev-parse --short "$REV"), key ${key:0:12})"
    return 0
  fi
  exec 9>"$ARCHIVE.lock"
  flock 9
  # Global, since the EXIT trap runs after main's locals are gone.
  work=$(mktemp -d "$CACHE_ROOT/.build-meerkat-image.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  mkdir "$work/context"
  git -C "$REPO_DIR" archive "$REV" | tar -x -C "$work/context"

  local volumes=()
  [[ -d "$HOME/.npm" ]] && volumes=(--volume "$HOME/.npm:/root/.npm:O")
  local cafile
  cafile=$(npm config get cafile 2>/dev/null || true)
  if [[ -f $cafile ]]; then
    printf 'cafile=/run/meerkat-build/ca.crt\n' >"$work/npmrc"
    volumes+=(--volume "$cafile:/run/meerkat-build/ca.crt:ro" --volume "$work/npmrc:/root/.npmrc:ro")
  fi
  local started=$SECONDS
  say "building the Dockerfile of $(git -C "$REPO_DIR" rev-parse --short "$REV") as $IMAGE_NAME"
  # --force-rm: a failed or cut-off step leaves no working container (each one a whole copy of the image in vfs).
  "${BUILDAH[@]}" build --layers --force-rm --pull=never --network host "${volumes[@]}" \
    --file "$work/context/Dockerfile" --tag "$IMAGE_NAME" "$work/context" >"$work/build.log" 2>&1 ||
    { tail -n 40 "$work/build.log" >&2 && fail 'buildah build failed'; }
  say "buildah build took $((SECONDS - started)) s"
  push_archive "$IMAGE_NAME" "$ARCHIVE"
  printf '%s\n' "$key" >"$ARCHIVE.key"
  remove_earlier_dangling_images "$work/build.log"
  local size
  size=$("${BUILDAH[@]}" images --noheading --format '{{.Size}}' "$IMAGE_NAME" | head -n1)
  say "$IMAGE_NAME: $(du -h "$ARCHIVE" | cut -f1) archive, $size unpacked; total $((SECONDS - started)) s"
}

main "$@"
