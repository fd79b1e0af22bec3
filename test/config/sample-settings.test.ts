import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadSettings } from '../../hub/src/config/settings.js';

describe('config/samples/hub.env', () => {
  it('is a valid set of hub settings, read as written', () => {
    const env = parseEnv(readFileSync(new URL('../../config/samples/hub.env', import.meta.url), 'utf8'));
    const settings = loadSettings(env, 'hub');
    expect(settings).toMatchObject({
      METRICS_PORT: 9464,
      HEALTH_SUCCESS_THRESHOLD_PERCENT: 99,
      METRICS_FLEET_MAX_AGE_PERCENT: 0.2,
      PUBLIC_URL: 'https://meerkat.example.com',
    });
    expect(settings.LOCATIONS.map((l) => l.name)).toEqual(['default', 'eu-west']);
  });
});
