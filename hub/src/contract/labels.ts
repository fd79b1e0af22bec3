import { z } from 'zod';

/**
 * A monitor's labels: Kubernetes label syntax, so a `Monitor` resource's `metadata.labels` are valid here as they
 * are, and `meerkat get monitors -l team=shop` selects as `kubectl get -l` does (docs/adr/0037).
 */
const MAX_LABELS = 64;

/** The name part of a key, and every value: at most 63 characters, alphanumeric at both ends. */
const LABEL_NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
/** The optional `prefix/` of a key: a DNS subdomain. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `key` is not a label key, or undefined when it is one. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash === -1 ? undefined : key.slice(0, slash);
  const name = key.slice(slash + 1);
  if (prefix !== undefined && (prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)))
    return `the prefix of label key "${key}" is not a DNS subdomain (lowercase, at most 253 characters)`;
  if (!LABEL_NAME.test(name))
    return `label key "${key}" is not [prefix/]name with a name of 1-63 letters, digits, "-", "_" or ".", alphanumeric at both ends`;
  return undefined;
}

/** Why `value` is not a label value, or undefined when it is one. */
export function labelValueProblem(value: string): string | undefined {
  if (value === '' || LABEL_NAME.test(value)) return undefined;
  return `label value "${value}" is not empty or 1-63 letters, digits, "-", "_" or ".", alphanumeric at both ends`;
}

export const labelsSchema = z
  .record(z.string(), z.string())
  .superRefine((labels, ctx) => {
    const keys = Object.keys(labels);
    if (keys.length > MAX_LABELS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_LABELS} labels` });
    for (const key of keys) {
      const problem = labelKeyProblem(key) ?? labelValueProblem(labels[key] ?? '');
      if (problem !== undefined) ctx.addIssue({ code: 'custom', path: [key], message: problem });
    }
  })
  .meta({
    id: 'Labels',
    description:
      'labels: optional. Kubernetes-style labels (`team: shop`, `example.com/tier: "1"`), at most 64; ' +
      "`GET /monitor/?labelSelector=` and `meerkat get monitors -l` select by them. A `Monitor` resource's " +
      '`metadata.labels` are its labels unless its spec has some.',
  });
export type Labels = z.infer<typeof labelsSchema>;
