import type * as Jose from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { AppError, UnauthorizedError, UnavailableError } from '../http/errors.js';
import { organizationIdSchema, roleSchema } from '../contract/roles.js';
import type { Principal, TokenVerifier } from './principal.js';

export interface OidcVerifierOptions {
  /** issuer: required. The OpenID Provider's issuer URL (`OIDC_ISSUER`); its discovery document names the JWKS. */
  issuer: string;
  /** audience: required. The `aud` every accepted token must carry (`OIDC_AUDIENCE`). */
  audience: string;
  /** algorithms: required. Asymmetric JWS algorithms accepted, e.g. `['RS256', 'PS256', 'ES256', 'EdDSA']`. */
  algorithms: string[];
}

/** Seconds of clock skew forgiven between the issuer and the hub on `exp` and `nbf`. */
const CLOCK_TOLERANCE_SECONDS = 5;

const CLAIM_MESSAGES: Record<string, string> = {
  iss: 'token issuer is not accepted',
  aud: 'token audience is not accepted',
  nbf: 'token is not yet valid',
};

interface IssuerKeys {
  /** The issuer exactly as the discovery document spells it, which is what tokens carry in `iss`. */
  issuer: string;
  keys: JWTVerifyGetKey;
  /**
   * jose, loaded with the discovery: a hub on API keys, and every process that verifies no token, never holds it
   * or openid-client (docs/benchmarks.md "Memory").
   */
  jose: typeof Jose;
}

export function createOidcVerifier(options: OidcVerifierOptions): TokenVerifier {
  // A symmetric algorithm would let anyone holding the public JWKS mint tokens.
  if (
    options.algorithms.length === 0 ||
    options.algorithms.some((alg) => alg === 'none' || alg.startsWith('HS'))
  ) {
    throw new TypeError('OIDC algorithms must be a non-empty list of asymmetric JWS algorithms');
  }
  const issuerUrl = new URL(options.issuer);
  let discovered: Promise<IssuerKeys> | undefined;
  const discoverOnce = (): Promise<IssuerKeys> =>
    (discovered ??= discoverIssuerKeys(issuerUrl, options.audience).catch((err: unknown) => {
      // Forget the failure so that the next request retries once the issuer is back.
      discovered = undefined;
      throw err;
    }));

  return {
    async verify(token) {
      const { issuer, keys, jose } = await discoverOnce();
      let payload: JWTPayload;
      try {
        ({ payload } = await jose.jwtVerify(token, keys, {
          issuer,
          audience: options.audience,
          algorithms: options.algorithms,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['exp'],
        }));
      } catch (err) {
        throw toRejection(err, jose.errors);
      }
      return principalFromClaims(payload);
    },
  };
}

async function discoverIssuerKeys(issuerUrl: URL, audience: string): Promise<IssuerKeys> {
  const [jose, { allowInsecureRequests, discovery }] = await Promise.all([
    import('jose'),
    import('openid-client'),
  ]);
  const { errors } = jose;
  // A resource server never acts as a client; openid-client merely needs some client id to build a Configuration.
  const metadata = await discovery(issuerUrl, audience, undefined, undefined, {
    execute: isLoopbackHttp(issuerUrl) ? [allowInsecureRequests] : [],
  }).then(
    (config) => config.serverMetadata(),
    (cause: unknown) => {
      throw new UnavailableError('identity provider discovery failed', { cause });
    },
  );
  if (!metadata.jwks_uri) throw new UnavailableError('identity provider publishes no jwks_uri');
  const jwksUrl = new URL(metadata.jwks_uri);
  if (jwksUrl.protocol !== 'https:' && !isLoopbackHttp(jwksUrl)) {
    throw new UnavailableError('identity provider jwks_uri is not https');
  }
  // Refetches on an unknown `kid` (at most every 30 s), so a rotated signing key is picked up without a restart.
  const remoteKeys = jose.createRemoteJWKSet(jwksUrl);
  const keys: JWTVerifyGetKey = async (header, token) => {
    try {
      return await remoteKeys(header, token);
    } catch (err) {
      if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) {
        throw err;
      }
      // Anything else is the issuer failing to serve usable keys: not the caller's fault, so 503 rather than 401.
      throw new UnavailableError('identity provider keys could not be fetched', { cause: err });
    }
  };
  return { issuer: metadata.issuer, keys, jose };
}

/** Plain http is only tolerable when the issuer runs on this machine (tests, `meerkat dev`). */
function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && /^(localhost|\[::1\]|127(\.\d{1,3}){3})$/.test(url.hostname);
}

function toRejection(err: unknown, errors: typeof Jose.errors): Error {
  if (err instanceof AppError) return err;
  if (err instanceof errors.JWTExpired) return new UnauthorizedError('token is expired');
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === 'missing') return new UnauthorizedError(`token is missing the ${err.claim} claim`);
    return new UnauthorizedError(CLAIM_MESSAGES[err.claim] ?? `token ${err.claim} claim is not accepted`);
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported) {
    return new UnauthorizedError('token algorithm is not accepted');
  }
  if (err instanceof errors.JWKSNoMatchingKey) return new UnauthorizedError('token signing key is not known');
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return new UnauthorizedError('token signature is invalid');
  }
  return new UnauthorizedError('token is malformed', { cause: err });
}

function principalFromClaims(claims: JWTPayload): Principal {
  const { organizationId, role } = claims;
  if (organizationId === undefined) throw new UnauthorizedError('token is missing the organizationId claim');
  if (role === undefined) throw new UnauthorizedError('token is missing the role claim');
  const org = organizationIdSchema.safeParse(organizationId);
  if (!org.success) throw new UnauthorizedError('token organizationId claim is not a valid organization id');
  const parsedRole = roleSchema.safeParse(role);
  if (!parsedRole.success) {
    throw new UnauthorizedError(`token role claim must be one of ${roleSchema.options.join(', ')}`);
  }
  return {
    organizationId: org.data,
    role: parsedRole.data,
    subject: claims.sub ?? 'unknown',
    method: 'oidc',
  };
}
