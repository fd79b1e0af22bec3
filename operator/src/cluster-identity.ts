// The `meerkat.dev/cluster` label of this operator's hub monitors when OPERATOR_CLUSTER_NAME is not set (ADR 0065):
// a short hash of the cluster's certificate authority, which every client of the cluster has and no two clusters
// share. In a pod that is the service account's ca.crt (client-node's in-cluster config names it as the cluster's
// caFile); out of the cluster, the kubeconfig's current cluster's certificate-authority-data or -file; a cluster
// reached without one (plain HTTP, or TLS not verified) is known by its server URL instead. The hash is of the first
// certificate's DER bytes, so the same CA gives the same identity however its PEM is wrapped or bundled.
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';

export interface ClusterIdentity {
  /** A label value: `ca-` or `api-` and 16 hex digits. */
  name: string;
  /** Where it came from, for the log line at start. */
  source: string;
}

const short = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex').slice(0, 16);

/** The identity of the kube config's current cluster; the same in its pods as from a kubeconfig outside. */
export function clusterIdentity(
  kubeConfig: KubeConfig,
  readFile: (path: string) => Buffer = (path) => readFileSync(path),
): ClusterIdentity {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) throw new Error('the kube config has no current cluster');
  const ca =
    cluster.caData !== undefined && cluster.caData !== ''
      ? { bytes: Buffer.from(cluster.caData, 'base64'), source: 'the certificate-authority-data' }
      : cluster.caFile !== undefined && cluster.caFile !== ''
        ? { bytes: readFile(cluster.caFile), source: cluster.caFile }
        : undefined;
  if (ca === undefined)
    return { name: `api-${short(cluster.server)}`, source: `the server URL ${cluster.server}` };
  return { name: `ca-${short(firstCertificate(ca.bytes))}`, source: `the cluster's CA (${ca.source})` };
}

/** The DER bytes of the first certificate of a PEM bundle; the bytes themselves when they are not PEM. */
function firstCertificate(pem: Buffer): Buffer {
  try {
    return new X509Certificate(pem).raw;
  } catch {
    return pem;
  }
}
