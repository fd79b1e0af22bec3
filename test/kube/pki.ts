// The throwaway credentials a test cluster needs: a CA, a serving certificate for 127.0.0.1/localhost signed by
// it, a service-account signing key pair and an admin token. Node makes the keys; openssl makes the certificates,
// since Node's crypto cannot issue X.509 certificates.
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';

export interface ClusterPki {
  caCertPath: string;
  servingCertPath: string;
  servingKeyPath: string;
  serviceAccountPublicKeyPath: string;
  serviceAccountPrivateKeyPath: string;
  /** kube-apiserver's --token-auth-file: the admin token, in group system:masters. */
  tokenAuthFilePath: string;
  adminToken: string;
}

export const ADMIN_USER = 'meerkat-test-admin';

// A private configuration, so the host's openssl.cnf can neither add nor contradict extensions.
const OPENSSL_CONFIG = `
[req]
distinguished_name = subject
[subject]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[serving]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
authorityKeyIdentifier = keyid
`;

function writeRsaKeyPair(privateKeyPath: string, publicKeyPath?: string): void {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  fs.writeFileSync(privateKeyPath, privateKey, { mode: 0o600 });
  if (publicKeyPath) fs.writeFileSync(publicKeyPath, publicKey);
}

/** Writes everything into dir (which must exist) and returns the paths. Valid for two days. */
export function createClusterPki(dir: string, opensslBinary: string): ClusterPki {
  const path = (name: string) => join(dir, name);
  // Takes one command line split at spaces: no argument here contains one.
  const openssl = (commandLine: string) => {
    const args = commandLine.split(' ');
    const result = spawnSync(opensslBinary, args, { cwd: dir, encoding: 'utf8' });
    if (result.status !== 0) {
      const reason = result.error?.message ?? `exit ${result.status}`;
      throw new Error(`openssl ${args.slice(0, 2).join(' ')} failed (${reason}):\n${result.stderr}`);
    }
  };
  fs.writeFileSync(path('openssl.cnf'), OPENSSL_CONFIG);

  writeRsaKeyPair(path('ca.key'));
  openssl(
    'req -x509 -new -key ca.key -subj /CN=meerkat-test-ca -days 2 -config openssl.cnf -extensions ca -out ca.crt',
  );

  writeRsaKeyPair(path('serving.key'));
  openssl('req -new -key serving.key -subj /CN=kube-apiserver -config openssl.cnf -out serving.csr');
  // A random serial instead of -CAcreateserial, which would leave a serial file to manage.
  const serial = `0x${randomBytes(16).toString('hex')}`;
  openssl(
    `x509 -req -in serving.csr -CA ca.crt -CAkey ca.key -set_serial ${serial} -days 2 ` +
      '-extfile openssl.cnf -extensions serving -out serving.crt',
  );

  writeRsaKeyPair(path('service-account.key'), path('service-account.pub'));

  const adminToken = randomBytes(32).toString('hex');
  fs.writeFileSync(path('tokens.csv'), `${adminToken},${ADMIN_USER},${ADMIN_USER},"system:masters"\n`, {
    mode: 0o600,
  });

  return {
    caCertPath: path('ca.crt'),
    servingCertPath: path('serving.crt'),
    servingKeyPath: path('serving.key'),
    serviceAccountPublicKeyPath: path('service-account.pub'),
    serviceAccountPrivateKeyPath: path('service-account.key'),
    tokenAuthFilePath: path('tokens.csv'),
    adminToken,
  };
}
