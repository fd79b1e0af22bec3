#!/usr/bin/env bash
# End to end on kind, for machines with Docker (the test suite's own cluster has no kubelet, so Pods never run
# there): create a kind cluster, start PostgreSQL and Redis, install the chart with skaffold (values-dev.yaml:
# image built locally and loaded into kind), apply every sample Monitor and wait until each is Synced.
# Usage: test/e2e/kind.sh [--keep]   (--keep leaves the cluster up; otherwise it is deleted at the end)
set -euo pipefail
cd "$(dirname "$0")/../.."

CLUSTER=meerkat
NAMESPACE=meerkat-dev
SAMPLES=e2e-samples
for tool in docker kind kubectl skaffold; do
  command -v "$tool" >/dev/null || { echo "kind.sh needs $tool on PATH" >&2; exit 1; }
done

if [[ "${1:-}" != "--keep" ]]; then
  trap 'kind delete cluster --name "$CLUSTER"' EXIT
fi
kind get clusters | grep -qx "$CLUSTER" || kind create cluster --name "$CLUSTER" --wait 120s
kubectl config use-context "kind-$CLUSTER"

# The chart's dependencies, as docs/install.md ("Development with skaffold") starts them.
kubectl create namespace "$NAMESPACE" --dry-run=client -o yaml | kubectl apply -f -
kubectl -n "$NAMESPACE" get pod postgres >/dev/null 2>&1 ||
  kubectl -n "$NAMESPACE" run postgres --image=postgres:16 --env=POSTGRES_USER=meerkat \
    --env=POSTGRES_PASSWORD=meerkat --port=5432 --expose
kubectl -n "$NAMESPACE" get pod redis >/dev/null 2>&1 ||
  kubectl -n "$NAMESPACE" run redis --image=redis:7 --port=6379 --expose
kubectl -n "$NAMESPACE" wait --for=condition=Ready pod/postgres pod/redis --timeout=180s

# Build, load into kind and install the chart (CRD, RBAC, hub, operator) in one go.
skaffold run --kube-context "kind-$CLUSTER"
kubectl wait --for=condition=Established crd/monitors.meerkat.dev --timeout=60s
kubectl -n "$NAMESPACE" rollout status deployment --timeout=300s

# Every sample, in a namespace of its own; API-form samples are not resources and are skipped.
kubectl create namespace "$SAMPLES" --dry-run=client -o yaml | kubectl apply -f -
for sample in config/samples/monitors/*.yaml; do
  if grep -q '^kind: Monitor' "$sample"; then kubectl -n "$SAMPLES" apply -f "$sample"; fi
done
kubectl -n "$SAMPLES" wait --for=condition=Synced mkm --all --timeout=180s
kubectl -n "$SAMPLES" get mkm
echo "e2e: every sample Monitor is Synced"
