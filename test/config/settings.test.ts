import { describe, expect, it } from 'vitest';
import { InvalidSettingError } from '../../hub/src/config/invalid-setting-error.js';
import { loadSettings } from '../../hub/src/config/settings.js';

const key = 'a'.repeat(64);

describe('settings', () => {
  it('gives dev its laptop defaults and freezes the result', () => {
    const settings = loadSettings({}, 'dev');
    expect(settings).toMatchObject({
      HOST: '127.0.0.1',
      PORT: 3000,
      METRICS_PORT: 9464,
      MEERKAT_DATA_DIR: './.meerkat',
      AUTH_MODE: 'api-key',
      SECRETS_BACKEND: 'local',
      LOCATIONS: [{ name: 'default', executor: 'worker' }],
      SLACK_API_URL: 'https://slack.com/api',
      production: false,
    });
    expect(Object.isFrozen(settings)).toBe(true);
  });

  it('listens on every address outside dev', () => {
    const settings = loadSettings(
      { AUTH_API_KEYS: `acme:admin:${key}`, SECRETS_KEY: key, REDIS_URL: 'redis://127.0.0.1:6379' },
      'hub',
    );
    expect(settings.HOST).toBe('0.0.0.0');
    expect(settings.AUTH_API_KEYS).toEqual([{ organizationId: 'acme', role: 'admin', sha256: key }]);
  });

  it.each([
    [{ PORT: 'abc' }, 'dev', /^invalid setting PORT: .*\(got "abc"\)$/],
    [{ PORT: '70000' }, 'dev', /^invalid setting PORT: /],
    [{ AUTH_MODE: 'magic' }, 'dev', /^invalid setting AUTH_MODE: /],
    [{ AUTH_MODE: 'oidc' }, 'dev', /^invalid setting OIDC_ISSUER: is required when AUTH_MODE=oidc$/],
    [{ AUTH_API_KEYS: 'acme:root:abc' }, 'dev', /^invalid setting AUTH_API_KEYS: /],
    [
      { LOCATIONS: 'eu-west,eu-west:worker' },
      'dev',
      /^invalid setting LOCATIONS: location names must be unique/,
    ],
    [{ LOCATIONS: 'eu-west:job' }, 'dev', /^invalid setting LOCATIONS: \[0\]\.job: required$/],
    [
      { LOCATIONS: '[{"name":"eu-west","executor":"job","job":{"namespace":"runners"}}]' },
      'dev',
      /^invalid setting LOCATIONS: \[0\]\.job\.image: required$/,
    ],
    [{ LOCATIONS: '[{"name":"eu-west"' }, 'dev', /^invalid setting LOCATIONS: is not valid JSON/],
    [{ LOCATIONS: 'eu-west:lambda' }, 'dev', /^invalid setting LOCATIONS: /],
    [{ SECRETS_KEY: 'short' }, 'dev', /^invalid setting SECRETS_KEY: must be 64 hexadecimal characters/],
    [{ DATABASE_URL: 'mysql://u:p@h/db' }, 'dev', /^invalid setting DATABASE_URL: must be a postgres/],
    [
      { SECRETS_KEY: key, REDIS_URL: 'redis://r' },
      'hub',
      /^invalid setting AUTH_API_KEYS: is required when AUTH_MODE=api-key/,
    ],
    [
      { AUTH_API_KEYS: `acme:admin:${key}`, REDIS_URL: 'redis://r' },
      'hub',
      /^invalid setting SECRETS_KEY: is required/,
    ],
    [{ SECRETS_KEY: key }, 'worker', /^invalid setting REDIS_URL: is required by meerkat worker/],
    [{ RUN_DETAILS_KEEP_MINUTES: '-5' }, 'dev', /^invalid setting RUN_DETAILS_KEEP_MINUTES: /],
    [{ RUN_DETAILS_KEEP_LATEST: '0' }, 'dev', /^invalid setting RUN_DETAILS_KEEP_LATEST: .*\(got "0"\)$/],
    [{ DATABASE_POOL_SIZE: '0' }, 'dev', /^invalid setting DATABASE_POOL_SIZE: .*\(got "0"\)$/],
  ] as const)('refuses %j for %s with one line naming the setting', (env, kind, message) => {
    expect(() => loadSettings(env, kind)).toThrow(InvalidSettingError);
    expect(() => loadSettings(env, kind)).toThrow(message);
  });

  it('leaves the pool to the process unless DATABASE_POOL_SIZE sets it', () => {
    expect(loadSettings({}, 'dev').DATABASE_POOL_SIZE).toBeUndefined();
    expect(loadSettings({ DATABASE_POOL_SIZE: '' }, 'dev').DATABASE_POOL_SIZE).toBeUndefined();
    expect(loadSettings({ DATABASE_POOL_SIZE: '4' }, 'dev').DATABASE_POOL_SIZE).toBe(4);
  });

  it('never echoes the value of a credential setting', () => {
    expect(() => loadSettings({ DATABASE_URL: 'mysql://user:pa55word@host/db' }, 'dev')).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('pa55word') as unknown }),
    );
  });
});
