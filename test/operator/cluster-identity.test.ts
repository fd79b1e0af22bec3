// The cluster identity an operator labels its hub monitors with when OPERATOR_CLUSTER_NAME is unset (ADR 0065): the
// same for one cluster however its CA reaches the operator (a pod's ca.crt, a kubeconfig's data), another for
// another cluster's CA.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterIdentity } from '../../operator/src/cluster-identity.js';
import { createTestAuthority, type TestAuthority } from '../runner/test-certificates.js';

let authority: TestAuthority;
let otherAuthority: TestAuthority;
beforeAll(() => {
  authority = createTestAuthority('One cluster CA');
  otherAuthority = createTestAuthority('Another cluster CA');
});
afterAll(() => {
  authority.dispose();
  otherAuthority.dispose();
});

function kubeConfigWith(cluster: {
  server: string;
  caData?: string;
  caFile?: string;
  skipTLSVerify?: boolean;
}) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', skipTLSVerify: false, ...cluster }],
    users: [{ name: 'u', token: 't' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}

describe('the cluster identity', () => {
  it('is a hash of the CA, the same from a kubeconfig’s data as from a pod’s ca.crt, whatever wraps the PEM', () => {
    const pem = authority.certificate;
    const fromData = clusterIdentity(
      kubeConfigWith({ server: 'https://10.0.0.1:6443', caData: Buffer.from(pem).toString('base64') }),
    );
    const files: Record<string, Buffer> = {
      '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt': Buffer.from(
        `\n${pem}\n${otherAuthority.certificate}`,
      ),
    };
    const inPod = clusterIdentity(
      kubeConfigWith({
        server: 'https://kubernetes.default.svc',
        caFile: '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt',
      }),
      (path) => files[path]!,
    );
    expect(fromData.name).toMatch(/^ca-[0-9a-f]{16}$/);
    expect(inPod.name).toBe(fromData.name);
  });

  it('differs between clusters of different CAs at the same address', () => {
    const server = 'https://127.0.0.1:6443';
    const one = clusterIdentity(
      kubeConfigWith({ server, caData: Buffer.from(authority.certificate).toString('base64') }),
    );
    const other = clusterIdentity(
      kubeConfigWith({ server, caData: Buffer.from(otherAuthority.certificate).toString('base64') }),
    );
    expect(one.name).not.toBe(other.name);
  });

  it('without a CA, is a hash of the server URL', () => {
    const identity = clusterIdentity(kubeConfigWith({ server: 'http://127.0.0.1:8080' }));
    expect(identity.name).toMatch(/^api-[0-9a-f]{16}$/);
    expect(clusterIdentity(kubeConfigWith({ server: 'http://10.0.0.2:8080' })).name).not.toBe(identity.name);
  });
});
