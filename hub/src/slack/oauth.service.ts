import { createHash, randomBytes } from 'node:crypto';
import type { CredentialCipher } from '../crypto/credential-cipher.js';
import type { Db } from '../db/database.js';
import { NotFoundError } from '../http/errors.js';
import type { Clock } from '../system/clock.js';
import type { InitiateOAuth, OAuthCallbackQuery, OAuthInitiated, OAuthStatus } from './oauth.schema.js';
import {
  consumeState,
  findOAuthTransaction,
  finishOAuthTransaction,
  insertOAuthTransaction,
  replaceStateHash,
} from './oauth-transaction.repository.js';
import { requireInstallSettings, slackBotScopes, type SlackSettings } from './slack-settings.js';
import { InstallationConflictError, storeSlackInstallation } from './store-installation.js';
import { exchangeSlackCode, SlackTokenExchangeError } from './token-exchange.js';

export const OAUTH_TRANSACTION_TTL_MS = 10 * 60_000;

export interface OAuthServiceDeps {
  db: Db;
  cipher: CredentialCipher;
  clock: Clock;
  slack: SlackSettings | undefined;
}

/** What the callback shows the browser: the HTTP status and a sentence. */
export interface CallbackOutcome {
  httpStatus: number;
  ok: boolean;
  message: string;
}

/** Where `start` sends the browser, and how to scope the cookie that binds the browser to the transaction. */
export interface StartedInstall {
  authorizeUrl: string;
  callbackPath: string;
  secureCookie: boolean;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** 256 random bits, URL-safe: transaction ids and state nonces are unguessable. */
const nonce = () => randomBytes(32).toString('base64url');

export function createOAuthService({ db, cipher, clock, slack }: OAuthServiceDeps) {
  return {
    async initiate(organizationId: string, input: InitiateOAuth): Promise<OAuthInitiated> {
      const settings = requireInstallSettings(slack);
      const now = clock.now();
      const id = `oat_${randomBytes(24).toString('base64url')}`;
      const row = await insertOAuthTransaction(db, {
        id,
        organization_id: organizationId,
        environment: input.environment,
        provider_type: 'chat',
        // Until `start` issues the real state, the hash is of a nonce nobody ever sees.
        state_hash: sha256(nonce()),
        status: 'pending',
        integration_id: null,
        error_message: null,
        created_at: now,
        expires_at: new Date(now.getTime() + OAUTH_TRANSACTION_TTL_MS),
        finished_at: null,
        integration_name: input.name,
        channel: input.channel ?? null,
      });
      const startUrl = `${settings.publicBaseUrl}/integrations/oauth/start/${id}`;
      return { transactionId: id, startUrl, expiresAt: row.expires_at.toISOString() };
    },

    /**
     * Issues a fresh one-time state (only its hash is kept; an earlier start's state stops working) and the
     * address of Slack's consent screen. Undefined when the transaction is unknown, finished or expired.
     */
    async start(transactionId: string): Promise<StartedInstall | undefined> {
      const settings = requireInstallSettings(slack);
      const state = nonce();
      const row = await replaceStateHash(db, transactionId, sha256(state), clock.now());
      if (row === undefined) return undefined;
      const authorize = new URL(settings.authorizeUrl);
      authorize.searchParams.set('client_id', settings.clientId);
      authorize.searchParams.set('scope', slackBotScopes.join(','));
      authorize.searchParams.set('redirect_uri', settings.redirectUri);
      authorize.searchParams.set('state', state);
      const callback = new URL(settings.redirectUri);
      return {
        authorizeUrl: authorize.toString(),
        callbackPath: callback.pathname,
        secureCookie: callback.protocol === 'https:',
      };
    },

    /** `startedTransactionId` is the transaction the browser's start cookie names: the install must end where it began. */
    async callback(
      query: OAuthCallbackQuery,
      startedTransactionId: string | undefined,
    ): Promise<CallbackOutcome> {
      const settings = requireInstallSettings(slack);
      if (query.state === undefined || query.state === '') {
        return {
          httpStatus: 400,
          ok: false,
          message: 'The answer from Slack has no state; start the install again.',
        };
      }
      const transaction = await consumeState(db, sha256(query.state), sha256(nonce()));
      if (transaction === undefined) {
        return {
          httpStatus: 400,
          ok: false,
          message: 'This install link is unknown or was already used; start the install again.',
        };
      }
      const now = clock.now();
      const fail = async (message: string, status: 'failed' | 'expired' = 'failed') => {
        await finishOAuthTransaction(db, transaction.id, {
          status,
          error_message: message,
          finished_at: now,
        });
        return { httpStatus: 400, ok: false, message };
      };
      if (transaction.expires_at.getTime() <= now.getTime()) {
        return fail('the install took longer than 10 minutes; start it again', 'expired');
      }
      if (startedTransactionId !== transaction.id) {
        return fail('the install was finished in another browser than the one that started it');
      }
      if (query.error !== undefined) {
        return fail(`Slack answered: ${query.error.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 64)}`);
      }
      if (query.code === undefined || query.code === '') return fail('the answer from Slack has no code');
      try {
        const installation = await exchangeSlackCode(settings, query.code);
        const integrationId = await storeSlackInstallation(db, cipher, transaction, installation, now);
        await finishOAuthTransaction(db, transaction.id, {
          status: 'completed',
          integration_id: integrationId,
          finished_at: now,
        });
        const team = installation.team.name ?? installation.team.id;
        return { httpStatus: 200, ok: true, message: `Meerkat is connected to the Slack workspace ${team}.` };
      } catch (error) {
        if (error instanceof SlackTokenExchangeError || error instanceof InstallationConflictError) {
          return fail(error.message);
        }
        await fail('the install could not be stored');
        throw error;
      }
    },

    async status(organizationId: string, transactionId: string): Promise<OAuthStatus> {
      const row = await findOAuthTransaction(db, transactionId);
      if (row?.organization_id !== organizationId) {
        throw new NotFoundError(`OAuth transaction ${transactionId} not found`);
      }
      const expired = row.status === 'pending' && row.expires_at.getTime() <= clock.now().getTime();
      return {
        status: expired ? 'expired' : row.status,
        ...(row.integration_id === null ? {} : { integrationId: row.integration_id }),
        ...(row.error_message === null ? {} : { errorMessage: row.error_message }),
      };
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
