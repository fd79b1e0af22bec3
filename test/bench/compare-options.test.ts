import { describe, expect, it } from 'vitest';
import { parseCompareOptions } from '../../bench/compare/compare-options.js';
import { kindsOf } from '../../bench/compare/meerkat-split.js';
import { loadSettings } from '../../hub/src/config/settings.js';

describe('the command line of bench:compare', () => {
  it("reads the issue's options into numbers and a list of systems", () => {
    const options = parseCompareOptions([
      '--monitors',
      '50',
      '--every',
      '20',
      '--warmup',
      '10',
      '--window',
      '30',
      '--systems',
      'split,blackbox',
    ]);
    expect(options).toEqual({
      monitors: 50,
      every: 20,
      warmup: 10,
      window: 30,
      workers: 1,
      'scheduler-in-worker': false,
      'worker-in-hub': false,
      'node-options': '',
      env: { hub: {}, scheduler: {}, worker: {} },
      systems: ['split', 'blackbox'],
      production: false,
    });
    expect(Object.isFrozen(options)).toBe(true);
  });

  it('reads the scheduler in the worker and a malloc trim threshold when given', () => {
    const options = parseCompareOptions(['--scheduler-in-worker', '--malloc-trim-threshold', '131072']);
    expect(options['scheduler-in-worker']).toBe(true);
    expect(options['malloc-trim-threshold']).toBe(131072);
  });

  it('reads the hub as the first worker, with the scheduler when asked', () => {
    const options = parseCompareOptions(['--worker-in-hub', '--scheduler-in-worker']);
    expect(options['worker-in-hub']).toBe(true);
    const argsOf = (layout: Parameters<typeof kindsOf>[0]) => kindsOf(layout).map((k) => [k.name, ...k.args]);
    expect(argsOf({ workers: 1, schedulerInWorker: true, workerInHub: true })).toEqual([
      ['hub', 'hub', '--locations', 'default', '--with-scheduler'],
    ]);
    expect(argsOf({ workers: 2, schedulerInWorker: false, workerInHub: true })).toEqual([
      ['hub', 'hub', '--locations', 'default'],
      ['scheduler', 'scheduler'],
      ['worker-2', 'worker', '--locations', 'default'],
    ]);
    expect(argsOf({ workers: 1, schedulerInWorker: true, workerInHub: false })).toEqual([
      ['hub', 'hub'],
      ['worker', 'worker', '--locations', 'default', '--with-scheduler'],
    ]);
  });

  it('starts as many workers in split as asked, one by default, and refuses none', () => {
    expect(parseCompareOptions(['--workers', '2']).workers).toBe(2);
    expect(() => parseCompareOptions(['--workers', '0'])).toThrow(/--workers: /);
  });

  it('measures as users run it with --production, and as the tests do without', () => {
    expect(parseCompareOptions(['--production']).production).toBe(true);
    expect(parseCompareOptions([]).production).toBe(false);
    expect(() => parseCompareOptions(['--production=yes'])).toThrow(/production/);
  });

  it("passes --node-options through to Meerkat's processes as given", () => {
    const options = parseCompareOptions(['--node-options=--max-semi-space-size=2']);
    expect(options['node-options']).toBe('--max-semi-space-size=2');
  });

  it('sets a variable of one process of split with --env, and refuses another process or no name', () => {
    const options = parseCompareOptions([
      '--env=hub:NODE_OPTIONS=--max-semi-space-size=2',
      '--env=worker:HEAP_BUDGET_MIB=160',
      '--env=worker:NODE_OPTIONS=--max-old-space-size=160',
    ]);
    expect(options.env).toEqual({
      hub: { NODE_OPTIONS: '--max-semi-space-size=2' },
      scheduler: {},
      worker: { HEAP_BUDGET_MIB: '160', NODE_OPTIONS: '--max-old-space-size=160' },
    });
    expect(() => parseCompareOptions(['--env=postgres:X=1'])).toThrow(/--env: /);
    expect(() => parseCompareOptions(['--env=worker:=1'])).toThrow(/--env: /);
  });

  it("takes session 27's documented runs as written, each --env a setting the worker reads", () => {
    // docs/benchmarks.md and ADR 0082: the gather off, and the worker's pool at 2 (docs/adr/0081).
    const base = [
      '--production',
      '--monitors',
      '10000',
      '--every',
      '10',
      '--warmup',
      '60',
      '--window',
      '120',
    ];
    const gatherOff = parseCompareOptions([
      ...base,
      '--systems',
      'split',
      '--scheduler-in-worker',
      '--env=worker:RUN_WRITE_GATHER_MS=0',
    ]);
    const poolOfTwo = parseCompareOptions([
      ...base,
      '--systems',
      'split,blackbox',
      '--scheduler-in-worker',
      '--env=hub:NODE_OPTIONS=--max-semi-space-size=2',
      '--env=worker:DATABASE_POOL_SIZE=2',
    ]);
    expect(gatherOff.env.worker).toEqual({ RUN_WRITE_GATHER_MS: '0' });
    expect(poolOfTwo.env.worker).toEqual({ DATABASE_POOL_SIZE: '2' });
    const required = {
      DATABASE_URL: 'postgres://127.0.0.1:5432/meerkat',
      REDIS_URL: 'redis://127.0.0.1:6379',
      SECRETS_KEY: 'ab'.repeat(32),
    };
    const settings = loadSettings(
      { ...required, ...gatherOff.env.worker, ...poolOfTwo.env.worker },
      'worker',
    );
    expect(settings.RUN_WRITE_GATHER_MS).toBe(0);
    expect(settings.DATABASE_POOL_SIZE).toBe(2);
  });

  it("takes session 28's documented one-process runs as written, each --env a setting the hub reads", () => {
    // docs/benchmarks.md "Memory of the split in one process (session 28)" and ADR 0086.
    const base = [
      '--production',
      '--monitors',
      '2000',
      '--every',
      '20',
      '--warmup',
      '60',
      '--window',
      '120',
      '--worker-in-hub',
      '--scheduler-in-worker',
    ];
    const runs = [
      ['--systems', 'split,blackbox', '--env=hub:NODE_OPTIONS=--max-semi-space-size=2'],
      [
        '--systems',
        'split',
        '--env=hub:NODE_OPTIONS=--max-semi-space-size=2',
        '--env=hub:DATABASE_POOL_SIZE=3',
      ],
      [
        '--systems',
        'split',
        '--env=hub:NODE_OPTIONS=--max-semi-space-size=2',
        '--env=hub:DATABASE_POOL_SIZE=5',
      ],
      ['--systems', 'split', '--env=hub:DATABASE_POOL_SIZE=5'],
      [
        '--systems',
        'split',
        '--env=hub:NODE_OPTIONS=--max-semi-space-size=2',
        '--env=hub:HEAP_BUDGET_MIB=110',
      ],
    ].map((extra) => parseCompareOptions([...base, ...extra]));
    for (const options of runs) {
      expect(options['worker-in-hub']).toBe(true);
      expect(options['scheduler-in-worker']).toBe(true);
    }
    const hubEnv = Object.assign({}, ...runs.map((options) => options.env.hub)) as Record<string, string>;
    expect(hubEnv).toEqual({
      NODE_OPTIONS: '--max-semi-space-size=2',
      DATABASE_POOL_SIZE: '5',
      HEAP_BUDGET_MIB: '110',
    });
    const settings = loadSettings(
      {
        DATABASE_URL: 'postgres://127.0.0.1:5432/meerkat',
        REDIS_URL: 'redis://127.0.0.1:6379',
        SECRETS_KEY: 'ab'.repeat(32),
        AUTH_API_KEYS: `bench:admin:${'ab'.repeat(32)}`,
        DATABASE_POOL_SIZE: hubEnv.DATABASE_POOL_SIZE,
        HEAP_BUDGET_MIB: hubEnv.HEAP_BUDGET_MIB,
      },
      'hub',
    );
    expect(settings.DATABASE_POOL_SIZE).toBe(5);
    expect(settings.HEAP_BUDGET_MIB).toBe(110);
  });

  it("sets MALLOC_ARENA_MAX of Meerkat's processes only when asked, to a count of 1 to 64", () => {
    expect(parseCompareOptions(['--malloc-arena-max', '2'])['malloc-arena-max']).toBe(2);
    expect(parseCompareOptions([])['malloc-arena-max']).toBeUndefined();
    expect(() => parseCompareOptions(['--malloc-arena-max', '0'])).toThrow(/--malloc-arena-max: /);
  });

  it('compares all three systems by default', () => {
    expect(parseCompareOptions([]).systems).toEqual(['split', 'dev', 'blackbox']);
  });

  it('refuses a system it does not know, naming the option', () => {
    expect(() => parseCompareOptions(['--systems', 'split,nagios'])).toThrow(/--systems: /);
  });

  it("refuses an interval below Meerkat's 10 seconds and one that is not a number", () => {
    expect(() => parseCompareOptions(['--every', '5'])).toThrow(/--every: /);
    expect(() => parseCompareOptions(['--every', '20s'])).toThrow(/--every: /);
  });

  it('refuses a window shorter than the interval', () => {
    expect(() => parseCompareOptions(['--every', '60', '--window', '30'])).toThrow(
      /--window: must be at least --every/,
    );
  });

  it('refuses an option it does not know', () => {
    expect(() => parseCompareOptions(['--duration', '60'])).toThrow(/--duration/);
  });
});
