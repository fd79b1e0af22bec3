// Where the Kubernetes test cluster's programs come from: kube-apiserver and kube-controller-manager from the
// cache that scripts/kube/build-binaries.sh fills, etcd and openssl from the system.
import * as fs from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

export const KUBE_VERSION = 'v1.20.2';
const BUILD_COMMAND = 'npm run provision';

export interface KubeBinaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  openssl: string;
}

/** Where the build scripts cache what they build: ${XDG_CACHE_HOME:-$HOME/.cache}/meerkat (scripts/kube/lib.sh). */
export function meerkatCacheRoot(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'meerkat');
}

const kubeCacheDir = () => join(meerkatCacheRoot(), `kubernetes-${KUBE_VERSION}`);

function findInPath(name: string): string | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter(Boolean);
  return dirs.map((dir) => join(dir, name)).find((path) => isExecutable(path));
}

function isExecutable(path: string): boolean {
  try {
    fs.accessSync(path, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The build writes VERSION last, so a directory without it (or with another version) is incomplete. */
function cachedBuildIsComplete(dir: string): boolean {
  let marker: string;
  try {
    marker = fs.readFileSync(join(dir, 'VERSION'), 'utf8');
  } catch {
    return false;
  }
  return marker.split('\n')[0] === KUBE_VERSION;
}

/** Finds every program the cluster needs, or throws one line that names the command which provides them. */
export function findKubeBinaries(): KubeBinaries {
  const cacheDir = kubeCacheDir();
  const cached = (name: string) => (cachedBuildIsComplete(cacheDir) ? join(cacheDir, name) : undefined);
  const found = {
    etcd: findInPath('etcd'),
    kubeApiserver: cached('kube-apiserver'),
    kubeControllerManager: cached('kube-controller-manager'),
    openssl: findInPath('openssl'),
  };
  const missing = [
    ...(found.etcd ? [] : ['etcd (not in PATH)']),
    ...(found.openssl ? [] : ['openssl (not in PATH)']),
    ...([found.kubeApiserver, found.kubeControllerManager].every((path) => path && isExecutable(path))
      ? []
      : [`kube-apiserver and kube-controller-manager ${KUBE_VERSION} (not built in ${cacheDir})`]),
  ];
  if (missing.length > 0) {
    const error = new Error(
      `Kubernetes test binaries missing: ${missing.join('; ')}. Run \`${BUILD_COMMAND}\``,
    );
    // One line is the whole story; a stack trace into the harness would only hide it.
    error.stack = error.message;
    throw error;
  }
  return found as KubeBinaries;
}
