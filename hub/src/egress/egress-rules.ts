import { isIP } from 'node:net';
import { z } from 'zod';
import { parseCidr } from './ip-address.js';
import { ownEndpointSchema, type OwnEndpoint } from './own-endpoints.js';

/** The four lists of an egress policy; docs/egress.md says how they combine. */
export const EGRESS_LIST_NAMES = ['denyCidrs', 'allowCidrs', 'denyHosts', 'allowHosts'] as const;
export type EgressListName = (typeof EGRESS_LIST_NAMES)[number];
export type EgressLists = Partial<Record<EgressListName, readonly string[] | undefined>>;

/** The setting each list comes from, as rule names in error messages quote it. */
export const EGRESS_SETTING_OF: Readonly<Record<EgressListName, string>> = {
  denyCidrs: 'EGRESS_DENY_CIDRS',
  allowCidrs: 'EGRESS_ALLOW_CIDRS',
  denyHosts: 'EGRESS_DENY_HOSTS',
  allowHosts: 'EGRESS_ALLOW_HOSTS',
};

const cidrSchema = z
  .string()
  .trim()
  .refine(
    (text) => parseCidr(text) !== undefined,
    'must be an IP address or a CIDR range such as 10.0.0.0/8 or fd00::/8',
  );

const hostLabels =
  /^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** `api.example.com` (that name) or `*.example.com` (any name under it); addresses go in the CIDR lists. */
const hostPatternSchema = z
  .string()
  .trim()
  .transform((text) => text.toLowerCase().replace(/\.$/, ''))
  .refine((text) => isIP(text) === 0, 'is an IP address: put addresses in the CIDR lists')
  .refine(
    (text) => hostLabels.test(text) && text.length <= 253,
    'must be a host name such as api.example.com, or *.example.com for every name under it',
  );

const commaSeparated = z
  .string()
  .default('')
  .transform((raw) =>
    raw
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
  );

/** The EGRESS_* settings, spread into the settings schema of every process that sends on a user's behalf. */
export const egressSettingsShape = {
  EGRESS_DENY_CIDRS: commaSeparated.pipe(z.array(cidrSchema)),
  EGRESS_ALLOW_CIDRS: commaSeparated.pipe(z.array(cidrSchema)),
  EGRESS_DENY_HOSTS: commaSeparated.pipe(z.array(hostPatternSchema)),
  EGRESS_ALLOW_HOSTS: commaSeparated.pipe(z.array(hostPatternSchema)),
  // The release's own processes (own-endpoints.ts): refused before any allow rule.
  MEERKAT_ENDPOINTS: commaSeparated.pipe(z.array(ownEndpointSchema)),
};
export type EgressSettings = {
  readonly [Name in Exclude<keyof typeof egressSettingsShape, 'MEERKAT_ENDPOINTS'>]: string[];
} & { readonly MEERKAT_ENDPOINTS: readonly OwnEndpoint[] };

/** The lists the EGRESS_* settings hold. */
export function egressListsOf(settings: EgressSettings): EgressLists {
  return {
    denyCidrs: settings.EGRESS_DENY_CIDRS,
    allowCidrs: settings.EGRESS_ALLOW_CIDRS,
    denyHosts: settings.EGRESS_DENY_HOSTS,
    allowHosts: settings.EGRESS_ALLOW_HOSTS,
  };
}

/**
 * `egress` of a LOCATIONS entry: each list given replaces the EGRESS_* list of the same name for the runs of
 * that location; a list not given is inherited.
 */
export const egressOverrideSchema = z.strictObject({
  denyCidrs: z.array(cidrSchema).optional(),
  allowCidrs: z.array(cidrSchema).optional(),
  denyHosts: z.array(hostPatternSchema).optional(),
  allowHosts: z.array(hostPatternSchema).optional(),
});
export type EgressOverride = z.infer<typeof egressOverrideSchema>;
