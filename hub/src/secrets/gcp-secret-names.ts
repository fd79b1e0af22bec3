import { createHash } from 'node:crypto';
import type { SecretScope } from './secret-store.js';

/** Secret ids allow letters, digits, "_" and "-"; "_" is kept for the separators below. */
function readablePart(text: string): string {
  return text.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 60);
}

/**
 * The Secret Manager secret id of one (organization, environment) map: `meerkat_<org>_<env>_<hash>`, at most
 * 146 characters. The readable parts help a person in the console; the hash of the exact pair keeps apart pairs
 * that read alike once sanitized (`a.b` and `a_b`), so no two maps can ever share a secret.
 */
export function secretIdFor({ organizationId, environment }: SecretScope): string {
  const hash = createHash('sha256').update(`${organizationId}\n${environment}`).digest('hex').slice(0, 16);
  return `meerkat_${readablePart(organizationId)}_${readablePart(environment)}_${hash}`;
}

export function secretResourceName(project: string, scope: SecretScope): string {
  return `projects/${project}/secrets/${secretIdFor(scope)}`;
}

/** `projects/p/secrets/s/versions/7` -> 7. Secret Manager answers with the project number, not the id. */
export function versionNumberOf(versionName: string | null | undefined): number | undefined {
  const match = /\/versions\/(\d+)$/.exec(versionName ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** Labels filter secrets in the console and in IAM conditions; annotations carry the exact, unsanitized pair. */
export function secretMetadataFor({ organizationId, environment }: SecretScope) {
  return {
    labels: { 'managed-by': 'meerkat' },
    annotations: { 'meerkat-organization': organizationId, 'meerkat-environment': environment },
  };
}
