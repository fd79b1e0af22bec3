// The part of a cluster's network plugin the node tests lack, for pods the chart does not template: the hub
// makes runner Jobs at run time, from a template with no `hostNetwork`, and without a CNI plugin the kubelet can
// start only host-network pods. A mutating admission webhook, served by the test on loopback, puts every new
// pod of a labelled namespace on the host network; nothing else of the pod changes. It serves with the
// apiserver's own loopback certificate (test/kube/pki.ts), which the apiserver already trusts through its CA.
import { AdmissionregistrationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import type { KubeClusterInfo } from '../kube/start-cluster.js';

/** Namespaces labelled `<HOST_NETWORK_LABEL>: "true"` get their new pods on the host network. */
export const HOST_NETWORK_LABEL = 'node-tests.meerkat.dev/host-network';

interface AdmissionReview {
  request: { uid: string; object: { spec?: { hostNetwork?: boolean } } };
}

function answer(review: AdmissionReview) {
  const onHost = review.request.object.spec?.hostNetwork === true;
  const patch = [{ op: 'add', path: '/spec/hostNetwork', value: true }];
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: {
      uid: review.request.uid,
      allowed: true,
      ...(onHost
        ? {}
        : { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') }),
    },
  };
}

export interface HostNetworkWebhook {
  /** Pods it has put on the host network. */
  mutated: number;
  close(): Promise<void>;
}

export async function startHostNetworkWebhook(
  kubeConfig: KubeConfig,
  cluster: KubeClusterInfo,
): Promise<HostNetworkWebhook> {
  const pkiDir = dirname(cluster.caCertPath);
  const state = { mutated: 0 };
  const server: Server = createServer(
    { cert: readFileSync(join(pkiDir, 'serving.crt')), key: readFileSync(join(pkiDir, 'serving.key')) },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as AdmissionReview;
        const reply = answer(review);
        if (reply.response.patchType) state.mutated += 1;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const admission = kubeConfig.makeApiClient(AdmissionregistrationV1Api);
  const name = `meerkat-node-tests-host-network-${port}`;
  await admission.createMutatingWebhookConfiguration({
    body: {
      metadata: { name },
      webhooks: [
        {
          name: 'host-network.node-tests.meerkat.dev',
          clientConfig: {
            url: `https://127.0.0.1:${port}/mutate`,
            caBundle: readFileSync(cluster.caCertPath).toString('base64'),
          },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
          namespaceSelector: { matchLabels: { [HOST_NETWORK_LABEL]: 'true' } },
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: 5,
        },
      ],
    },
  });
  return {
    get mutated() {
      return state.mutated;
    },
    async close() {
      await admission.deleteMutatingWebhookConfiguration({ name });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
