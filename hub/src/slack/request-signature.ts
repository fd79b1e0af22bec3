import { createHmac, timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from '../http/errors.js';

/** Slack refuses to replay older requests, and so do we: a captured body is worthless after 5 minutes. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

export interface SignedRequest {
  rawBody: Buffer;
  signature: string | undefined;
  timestamp: string | undefined;
}

export function signSlackRequest(signingSecret: string, timestamp: string, rawBody: Buffer | string): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(rawBody);
  return `v0=${hmac.digest('hex')}`;
}

/**
 * Checks Slack's `v0` request signature over the exact bytes received. Every failure is the same 401 with a
 * reason that reveals nothing about the expected value; the comparison takes constant time.
 */
export function verifySlackSignature(signingSecret: string, request: SignedRequest, now: Date): void {
  const { signature, timestamp } = request;
  if (signature === undefined || timestamp === undefined) {
    throw new UnauthorizedError('X-Slack-Signature and X-Slack-Request-Timestamp are required');
  }
  if (!/^\d{1,12}$/.test(timestamp)) throw new UnauthorizedError('X-Slack-Request-Timestamp is invalid');
  const age = Math.abs(Math.floor(now.getTime() / 1000) - Number(timestamp));
  if (age > SIGNATURE_TOLERANCE_SECONDS) {
    throw new UnauthorizedError('X-Slack-Request-Timestamp is outside the 5-minute tolerance');
  }
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) throw new UnauthorizedError('X-Slack-Signature is invalid');
  const expected = Buffer.from(signSlackRequest(signingSecret, timestamp, request.rawBody), 'utf8');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'utf8'))) {
    throw new UnauthorizedError('X-Slack-Signature does not match the body');
  }
}
