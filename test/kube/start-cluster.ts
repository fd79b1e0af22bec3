// Starts a throwaway Kubernetes control plane on loopback: etcd, kube-apiserver and kube-controller-manager
// (for Jobs, garbage collection, namespace deletion and service accounts), in a fresh temp dir. Nothing runs Pods.
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { freePort } from '../harness/processes.js';
import type { KubeBinaries } from './binaries.js';
import { answersOk, forgetDir, removeDirOnExit, startDaemon, type Daemon } from './daemons.js';
import { ADMIN_USER, createClusterPki, type ClusterPki } from './pki.js';

/** What the tests get (via vitest's provide/inject). */
export interface KubeClusterInfo {
  /** Admin kubeconfig (token in system:masters, CA embedded). */
  kubeconfigPath: string;
  serverUrl: string;
  adminToken: string;
  caCertPath: string;
}

export interface RunningKubeCluster {
  info: KubeClusterInfo;
  stop(): Promise<void>;
}

const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
// Without a kubelet, nodes, volumes, cloud resources and certificate requests have nothing to act on.
const DISABLED_CONTROLLERS = ['nodeipam', 'nodelifecycle', 'cloud-node-lifecycle', 'route', 'service']
  .concat(['attachdetach', 'persistentvolume-binder', 'persistentvolume-expander', 'pv-protection'])
  .concat(['pvc-protection', 'ephemeral-volume', 'csrapproving', 'csrcleaner', 'csrsigning']);

/** `{ 'secure-port': 6443 }` -> `['--secure-port=6443']` */
function flags(values: Record<string, string | number | boolean>): string[] {
  return Object.entries(values).map(([name, value]) => `--${name}=${value}`);
}

function writeKubeconfig(path: string, serverUrl: string, pki: ClusterPki): void {
  const caData = fs.readFileSync(pki.caCertPath).toString('base64');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'meerkat-test', cluster: { server: serverUrl, 'certificate-authority-data': caData } },
    ],
    users: [{ name: ADMIN_USER, user: { token: pki.adminToken } }],
    contexts: [{ name: 'meerkat-test', context: { cluster: 'meerkat-test', user: ADMIN_USER } }],
    'current-context': 'meerkat-test',
  };
  fs.writeFileSync(path, stringify(kubeconfig), { mode: 0o600 });
}

async function startEtcd(binaries: KubeBinaries, dir: string): Promise<{ daemon: Daemon; url: string }> {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const daemon = await startDaemon({
    name: 'etcd',
    command: binaries.etcd,
    args: flags({
      name: 'meerkat-test',
      'data-dir': join(dir, 'etcd'),
      'listen-client-urls': url,
      'advertise-client-urls': url,
      'listen-peer-urls': peerUrl,
      'initial-advertise-peer-urls': peerUrl,
      'initial-cluster': `meerkat-test=${peerUrl}`,
    }),
    dir,
    // etcd 3.4 refuses to start on arm64 unless told that it is meant.
    env: process.arch === 'arm64' ? { ...process.env, ETCD_UNSUPPORTED_ARCH: 'arm64' } : process.env,
    startTimeoutMs: 30_000,
    isReady: () => answersOk(`${url}/health`),
  });
  return { daemon, url };
}

async function startApiserver(binaries: KubeBinaries, dir: string, etcdUrl: string, pki: ClusterPki) {
  const port = await freePort();
  const serverUrl = `https://127.0.0.1:${port}`;
  const ca = fs.readFileSync(pki.caCertPath, 'utf8');
  const daemon = await startDaemon({
    name: 'kube-apiserver',
    command: binaries.kubeApiserver,
    args: flags({
      'etcd-servers': etcdUrl,
      'bind-address': '127.0.0.1',
      'advertise-address': '127.0.0.1',
      'secure-port': port,
      'insecure-port': 0,
      'cert-dir': dir,
      'tls-cert-file': pki.servingCertPath,
      'tls-private-key-file': pki.servingKeyPath,
      'client-ca-file': pki.caCertPath,
      'token-auth-file': pki.tokenAuthFilePath,
      'authorization-mode': 'RBAC',
      'service-account-issuer': SERVICE_ACCOUNT_ISSUER,
      'service-account-key-file': pki.serviceAccountPublicKeyPath,
      'service-account-signing-key-file': pki.serviceAccountPrivateKeyPath,
      'api-audiences': SERVICE_ACCOUNT_ISSUER,
      // A label only: no Service address is ever routed here.
      'service-cluster-ip-range': '10.96.0.0/24',
      // GA since Kubernetes 1.23; alpha in 1.20, so switched on to match every cluster runner Jobs meet today.
      'feature-gates': 'TTLAfterFinished=true',
      // The default reconciler refuses a loopback address for the `kubernetes` Service's endpoints.
      'endpoint-reconciler-type': 'none',
      profiling: false,
    }),
    dir,
    startTimeoutMs: 90_000,
    isReady: () => answersOk(`${serverUrl}/readyz`, { ca, bearerToken: pki.adminToken }),
  });
  return { daemon, serverUrl };
}

async function startControllerManager(
  binaries: KubeBinaries,
  dir: string,
  pki: ClusterPki,
  kubeconfig: string,
) {
  const port = await freePort();
  return startDaemon({
    name: 'kube-controller-manager',
    command: binaries.kubeControllerManager,
    args: flags({
      kubeconfig,
      'bind-address': '127.0.0.1',
      'secure-port': port,
      port: 0,
      'leader-elect': false,
      'feature-gates': 'TTLAfterFinished=true',
      'cert-dir': join(dir, 'controller-manager-certs'),
      'service-account-private-key-file': pki.serviceAccountPrivateKeyPath,
      'root-ca-file': pki.caCertPath,
      controllers: ['*', ...DISABLED_CONTROLLERS.map((name) => `-${name}`)].join(','),
      profiling: false,
    }),
    dir,
    startTimeoutMs: 60_000,
    // Its health port serves a self-signed certificate; /healthz needs no credentials.
    isReady: () => answersOk(`https://127.0.0.1:${port}/healthz`),
  });
}

/** Starts the control plane; on any failure stops what did start and rethrows (with the failing log's tail). */
export async function startKubeCluster(binaries: KubeBinaries): Promise<RunningKubeCluster> {
  const dir = fs.mkdtempSync(join(tmpdir(), 'meerkat-kube-'));
  removeDirOnExit(dir);
  const started: Daemon[] = [];
  const stop = async () => {
    // Controllers first, etcd last, so nothing logs errors about a store that has gone.
    for (const daemon of started.reverse()) await daemon.stop();
    forgetDir(dir);
  };
  try {
    const pki = createClusterPki(dir, binaries.openssl);
    const etcd = await startEtcd(binaries, dir);
    started.push(etcd.daemon);
    const apiserver = await startApiserver(binaries, dir, etcd.url, pki);
    started.push(apiserver.daemon);
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeKubeconfig(kubeconfigPath, apiserver.serverUrl, pki);
    started.push(await startControllerManager(binaries, dir, pki, kubeconfigPath));
    const info = {
      kubeconfigPath,
      serverUrl: apiserver.serverUrl,
      adminToken: pki.adminToken,
      caCertPath: pki.caCertPath,
    };
    return { info, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
