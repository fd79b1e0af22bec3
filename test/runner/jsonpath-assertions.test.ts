import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../hub/src/contract/assertion.js';
import type { MonitorDefinition } from '../../hub/src/contract/monitor-definition.js';
import { createMonitorRunner, type AssertionOutcome } from '../../hub/src/runner/monitor-runner.js';
import { loopbackEgress } from '../harness/egress.js';
import { startTestHub, type TestHub } from '../harness/hub.js';
import { validMonitor } from '../monitors/fixtures.js';
import type { RunningTarget } from './broken-targets.js';
import { startJsonDocumentsTarget } from './json-documents-target.js';
import { assertionNode, httpNode, monitorOf, runContext } from './monitor-builders.js';

const LIBRARY = {
  books: [
    {
      title: 'Sayings of the Century',
      price: 8.95,
      tags: ['quotes'],
      inPrint: true,
      signed: true,
      used: true,
    },
    { title: 'Moby Dick', price: 8.99, tags: ['classic', 'sea'], inPrint: true, signed: false, used: true },
    {
      title: 'The Lord of the Rings',
      price: 22.99,
      tags: ['classic'],
      inPrint: true,
      signed: true,
      used: false,
    },
  ],
  bicycle: { colour: 'red', price: 399 },
  name: `${'a'.repeat(40)}!`,
};

const body = (path: string, predicate: Assertion['predicate'] = { type: 'unary', operator: 'IS_NOT_NULL' }) =>
  ({ nodeId: 'library', subject: 'body', path, predicate }) as Assertion;

// [what it shows, path, what the path selects from LIBRARY (undefined: nothing)]
const selections: Array<[string, string, unknown]> = [
  ['a filter with a comparison', '$.books[?@.price < 9].title', ['Sayings of the Century', 'Moby Dick']],
  ['match() takes the whole string', "$.books[?match(@.title, 'Moby.*')].title", 'Moby Dick'],
  ['match() fails on a part of it', "$.books[?match(@.title, 'Dick')].title", undefined],
  ['search() finds a part', "$.books[?search(@.title, 'Dick')].title", 'Moby Dick'],
  ['a wildcard', '$.books[*].price', [8.95, 8.99, 22.99]],
  ['a descendant segment', '$..price', [8.95, 8.99, 22.99, 399]],
  [
    'three conditions joined by &&',
    '$.books[?@.inPrint == true && @.signed == true && @.used == true].title',
    'Sayings of the Century',
  ],
  [
    'a bare query, which tests that the member exists (not that it is true)',
    '$.books[?@.signed].title',
    ['Sayings of the Century', 'Moby Dick', 'The Lord of the Rings'],
  ],
  [
    'an index inside a filter',
    "$.books[?@.tags[0] == 'classic'].title",
    ['Moby Dick', 'The Lord of the Rings'],
  ],
  ['length() and count()', '$.books[?length(@.tags) == 2 && count(@.tags[*]) == 2].title', 'Moby Dick'],
  ['a slice from the end', '$.books[-2:].title', ['Moby Dick', 'The Lord of the Rings']],
  ['a backtracking pattern, in linear time', "$[?search(@, '(a+)+!')]", LIBRARY.name],
];

describe('RFC 9535 JSONPath in body assertions', () => {
  let target: RunningTarget;
  const runner = createMonitorRunner({ egress: loopbackEgress });
  const libraryMonitor = (assertions: Assertion[]) =>
    monitorOf(
      [httpNode('library', target.url, '/library'), assertionNode('verify', assertions)],
      [['library', 'verify']],
    );
  const outcomesOf = async (monitor: MonitorDefinition): Promise<AssertionOutcome[]> =>
    (await runner.run(monitor, runContext())).steps.find((step) => step.nodeId === 'verify')?.assertions ??
    [];

  beforeAll(async () => {
    target = await startJsonDocumentsTarget({ '/library': LIBRARY });
  });
  afterAll(async () => {
    await runner.close();
    await target.close();
  });

  it.each(selections)('%s: %s selects what the RFC says', async (_what, path, selected) => {
    const [outcome] = await outcomesOf(libraryMonitor([body(path)]));
    expect(outcome).toMatchObject({ passed: selected !== undefined, actual: selected });
  });

  it('evaluates every JSONPath of a response in one run, each against its own predicate', async () => {
    const outcomes = await outcomesOf(
      libraryMonitor([
        body('$.bicycle.colour', { type: 'binary', operator: 'EQUAL', expected: 'red' }),
        body('$.books[*].title', { type: 'binary', operator: 'CONTAINS', expected: 'Moby Dick' }),
        body('$.books[?@.price > 100]', { type: 'unary', operator: 'IS_NULL' }),
      ]),
    );
    expect(outcomes.map((outcome) => outcome.passed)).toEqual([true, true, true]);
  });

  it('fails a stored monitor whose path is no longer valid JSONPath, without quoting the body', async () => {
    const monitor = libraryMonitor([body('$.bicycle.colour')]);
    // As a monitor saved before RFC 9535 paths were required reads from the database.
    const stored = monitor.nodes[1] as { assertions: Array<{ path: string }> };
    stored.assertions = stored.assertions.map((assertion) => ({
      ...assertion,
      path: '$..[?(@.colour.match(/re/))]',
    }));
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.success).toBe(false);
    expect(outcome.errorClasses).toEqual(['assertion']);
    expect(outcome.errors[0]).toContain('invalid JSONPath: ');
    expect(outcome.errors[0]).toContain('JSONPath has no methods');
    expect(outcome.errors[0]).not.toContain('red');
  });
});

describe('a path that is not RFC 9535, when a monitor is saved', () => {
  let hub: TestHub;
  beforeAll(async () => {
    hub = await startTestHub();
  });
  afterAll(() => hub.close());

  it.each([
    ['a script filter', '$[?(@.match(/(a+)+$/))]', 'JSONPath has no methods'],
    ['a JavaScript regular expression', '$[?match(@.name, /a+/)]', 'a regular expression is a string'],
    ['a pattern that is not an I-Regexp', "$[?match(@.name, '\\\\d+')]", 'not an I-Regexp'],
    ['an unknown function', '$[?exists(@.name)]', 'unknown function exists()'],
    ['a value used as a condition', '$[?length(@.name)]', 'gives a value, not a condition'],
  ])('with %s, PUT answers 400 naming the path', async (_what, path, words) => {
    const monitor = validMonitor();
    monitor.nodes[2] = {
      ...monitor.nodes[2],
      assertions: [
        {
          nodeId: 'cart',
          subject: 'status',
          predicate: { type: 'binary', operator: 'EQUAL', expected: 200 },
        },
        { nodeId: 'cart', subject: 'body', path, predicate: { type: 'unary', operator: 'IS_NOT_NULL' } },
      ],
    };
    const res = await hub.request('PUT', '/monitor/web-1', { as: 'acmeEditor', body: monitor });
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { details: Array<{ path: string; message: string }> };
    expect(answer.details).toEqual([
      { path: 'nodes[2].assertions[1].path', message: expect.stringContaining(words) as string },
    ]);
    expect(answer.details[0]?.message).toContain('not an RFC 9535 JSONPath');
  });
});
