// Certificates the TLS tests make with the openssl command at test time: a CA of their own and leaves it signs
// with any validity window (`openssl ca` takes explicit dates, so an expired one is as easy as a valid one).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface KeyPair {
  key: string;
  cert: string;
}

export interface TestAuthority {
  /** The CA certificate in PEM, for a runner that should trust it. */
  certificate: string;
  /** A leaf for `names` (DNS names or IP addresses), valid from `notBefore` to `notAfter`. */
  issue(options: { commonName: string; names: string[]; notBefore: Date; notAfter: Date }): KeyPair;
  /** Removes the CA's files. */
  dispose(): void;
}

const CA_CONFIG = `[ca]
default_ca = test
[test]
database = index.txt
new_certs_dir = .
serial = serial
default_md = sha256
policy = any
copy_extensions = none
unique_subject = no
[any]
commonName = supplied
`;

const openssl = (dir: string, args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });

/** `YYYYMMDDHHMMSSZ`, the form `openssl ca -startdate` takes. */
const asn1Time = (at: Date) =>
  at
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');

const subjectAltNames = (names: string[]) =>
  names.map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');

/** `ca.key` and `ca.pem` in `dir`: a certificate that signs itself, for `days`. */
function writeSelfSigned(dir: string, commonName: string, days: number, extra: string[]): void {
  const subject = `/CN=${commonName}`;
  const files = ['-keyout', 'ca.key', '-out', 'ca.pem'];
  openssl(dir, [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    String(days),
    '-subj',
    subject,
    ...extra,
    ...files,
  ]);
}

export function createTestAuthority(name = 'Meerkat Test CA'): TestAuthority {
  const dir = mkdtempSync(join(tmpdir(), 'meerkat-ca-'));
  writeSelfSigned(dir, name, 3650, []);
  writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG);
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '01\n');
  let issued = 0;
  return {
    certificate: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    issue({ commonName, names, notBefore, notAfter }) {
      issued += 1;
      const base = `leaf-${issued}`;
      writeFileSync(join(dir, `${base}.cnf`), `[leaf]\nsubjectAltName = ${subjectAltNames(names)}\n`);
      openssl(dir, [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        `/CN=${commonName}`,
        '-keyout',
        `${base}.key`,
        '-out',
        `${base}.csr`,
      ]);
      openssl(dir, [
        'ca',
        '-batch',
        '-config',
        'ca.cnf',
        '-cert',
        'ca.pem',
        '-keyfile',
        'ca.key',
        '-in',
        `${base}.csr`,
        '-out',
        `${base}.pem`,
        '-startdate',
        asn1Time(notBefore),
        '-enddate',
        asn1Time(notAfter),
        '-extfile',
        `${base}.cnf`,
        '-extensions',
        'leaf',
        '-notext',
      ]);
      return {
        key: readFileSync(join(dir, `${base}.key`), 'utf8'),
        cert: readFileSync(join(dir, `${base}.pem`), 'utf8'),
      };
    },
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A self-signed leaf, signed by no CA at all. */
export function selfSigned(commonName: string): KeyPair {
  const dir = mkdtempSync(join(tmpdir(), 'meerkat-self-'));
  try {
    writeSelfSigned(dir, commonName, 30, ['-addext', `subjectAltName=${subjectAltNames([commonName])}`]);
    return {
      key: readFileSync(join(dir, 'ca.key'), 'utf8'),
      cert: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const DAY_MS = 86_400_000;
export const daysFromNow = (days: number) => new Date(Date.now() + days * DAY_MS);
