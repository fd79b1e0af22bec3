import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assertion } from '../../hub/src/contract/assertion.js';
import { createMonitorRunner, type AssertionOutcome } from '../../hub/src/runner/monitor-runner.js';
import { assertionNode, httpNode, monitorOf, runContext } from './monitor-builders.js';
import { startTargetServer, type TargetServer } from './target-server.js';
import { loopbackEgress } from '../harness/egress.js';

type Predicate = Assertion['predicate'];
const binary = (operator: string, expected: unknown) => ({ type: 'binary', operator, expected }) as Predicate;
const unary = (operator: string) => ({ type: 'unary', operator }) as Predicate;
const status = (predicate: Predicate): Assertion =>
  ({ nodeId: 'json', subject: 'status', predicate }) as Assertion;
const header = (headerName: string, predicate: Predicate): Assertion => ({
  nodeId: 'json',
  subject: 'headers',
  headerName,
  predicate,
});
const body = (path: string, predicate: Predicate): Assertion => ({
  nodeId: 'json',
  subject: 'body',
  path,
  predicate,
});
const text = (predicate: Predicate, nodeId = 'json'): Assertion => ({ nodeId, subject: 'text', predicate });
const responseTime = (predicate: Predicate): Assertion =>
  ({ nodeId: 'json', subject: 'responseTime', predicate }) as Assertion;

// [operator, assertion that holds against the target, assertion that does not]. The target's /json answers
// 200 with headers x-count: "42", x-empty: "", x-flag: "true" and the body of JSON_DOCUMENT; /xml a small XML.
const operatorCases: Array<[string, Assertion, Assertion]> = [
  ['EQUAL', status(binary('EQUAL', 200)), status(binary('EQUAL', 500))],
  [
    'EQUAL (string)',
    body('$.status.indicator', binary('EQUAL', 'none')),
    body('$.status.indicator', binary('EQUAL', 'major')),
  ],
  ['NOT_EQUAL', body('$.status.indicator', binary('NOT_EQUAL', 'major')), status(binary('NOT_EQUAL', 200))],
  [
    'GREATER_THAN',
    header('X-Count', binary('GREATER_THAN', 41)),
    header('x-count', binary('GREATER_THAN', 42)),
  ],
  ['LESS_THAN', body('$.items[0].id', binary('LESS_THAN', 2)), body('$.items[1].id', binary('LESS_THAN', 2))],
  [
    'GREATER_THAN_OR_EQUAL',
    body('$.count', binary('GREATER_THAN_OR_EQUAL', 42)),
    status(binary('GREATER_THAN_OR_EQUAL', 201)),
  ],
  [
    'LESS_THAN_OR_EQUAL',
    status(binary('LESS_THAN_OR_EQUAL', 200)),
    header('x-count', binary('LESS_THAN_OR_EQUAL', 41.5)),
  ],
  [
    'CONTAINS',
    header('Content-Type', binary('CONTAINS', 'json')),
    header('content-type', binary('CONTAINS', 'xml')),
  ],
  [
    'CONTAINS (list)',
    body('$.items[*].name', binary('CONTAINS', 'rocket')),
    body('$.items[*].name', binary('CONTAINS', 'piano')),
  ],
  ['NOT_CONTAINS', text(binary('NOT_CONTAINS', 'error')), text(binary('NOT_CONTAINS', 'anvil'))],
  [
    'STARTS_WITH',
    body('$.status.description', binary('STARTS_WITH', 'All')),
    body('$.status.description', binary('STARTS_WITH', 'Some')),
  ],
  ['ENDS_WITH', text(binary('ENDS_WITH', '</health>'), 'xml'), text(binary('ENDS_WITH', '</status>'), 'xml')],
  [
    'NOT_STARTS_WITH',
    header('x-count', binary('NOT_STARTS_WITH', '5')),
    header('x-count', binary('NOT_STARTS_WITH', '4')),
  ],
  [
    'NOT_ENDS_WITH',
    body('$.status.indicator', binary('NOT_ENDS_WITH', 'x')),
    body('$.status.indicator', binary('NOT_ENDS_WITH', 'ne')),
  ],
  ['IS_NULL', header('x-not-sent', unary('IS_NULL')), header('x-count', unary('IS_NULL'))],
  ['IS_NULL (JSON null)', body('$.nothing', unary('IS_NULL')), body('$.count', unary('IS_NULL'))],
  ['IS_NOT_NULL', header('x-flag', unary('IS_NOT_NULL')), body('$.missing', unary('IS_NOT_NULL'))],
  ['IS_TRUE', body('$.flag', unary('IS_TRUE')), body('$.flagText', unary('IS_TRUE'))],
  ['IS_TRUE (header text)', header('x-flag', unary('IS_TRUE')), header('x-count', unary('IS_TRUE'))],
  ['IS_FALSE', body('$.flagText', unary('IS_FALSE')), body('$.flag', unary('IS_FALSE'))],
  ['IS_EMPTY', header('x-empty', unary('IS_EMPTY')), header('x-count', unary('IS_EMPTY'))],
  [
    'IS_EMPTY (absent, empty list)',
    body('$.emptyList', unary('IS_EMPTY')),
    body('$.items', unary('IS_EMPTY')),
  ],
  ['IS_NOT_EMPTY', body('$.items', unary('IS_NOT_EMPTY')), body('$.empty', unary('IS_NOT_EMPTY'))],
  ['responseTime', responseTime(binary('LESS_THAN', 60_000)), responseTime(binary('GREATER_THAN', 60_000))],
];

describe('assertion operators, each against the local target', () => {
  let target: TargetServer;
  const runner = createMonitorRunner({ egress: loopbackEgress });
  let outcomes: AssertionOutcome[];

  beforeAll(async () => {
    target = await startTargetServer();
    const assertions = operatorCases.flatMap(([, holds, fails]) => [holds, fails]);
    const monitor = monitorOf(
      [
        httpNode('json', target.url, '/json'),
        httpNode('xml', target.url, '/xml', { response_format: 'XML' }),
        assertionNode('verify', assertions),
      ],
      [
        ['json', 'verify'],
        ['xml', 'verify'],
      ],
    );
    const outcome = await runner.run(monitor, runContext());
    outcomes = outcome.steps.find((step) => step.nodeId === 'verify')?.assertions ?? [];
  });
  afterAll(async () => {
    await runner.close();
    await target.close();
  });

  it.each(operatorCases.map(([name], index) => [name, index] as const))(
    '%s passes when it holds and fails when it does not',
    (_name, index) => {
      expect(outcomes[2 * index]).toMatchObject({ passed: true });
      expect(outcomes[2 * index + 1]).toMatchObject({ passed: false });
    },
  );

  it('reports expected against actual in readable messages', () => {
    const messageOf = (index: number) => outcomes[index]?.message;
    expect(messageOf(1)).toBe('json status EQUAL 500, got 200');
    expect(messageOf(7)).toBe('json header x-count GREATER_THAN 42, got "42"');
    expect(messageOf(33)).toBe('json body $.missing IS_NOT_NULL, got nothing');
    expect(messageOf(35)).toBe('json body $.flagText IS_TRUE, got "false"');
    expect(outcomes[47]?.message).toMatch(/^json responseTime GREATER_THAN 60000, got \d+ ms$/);
    expect(outcomes[1]).toMatchObject({
      nodeId: 'json',
      subject: 'status',
      operator: 'EQUAL',
      expected: 500,
      actual: 200,
    });
    expect(outcomes[7]).toMatchObject({ headerName: 'x-count', actual: '42' });
    expect(outcomes[17]).toMatchObject({ path: '$.items[*].name', actual: ['anvil', 'rocket'] });
  });

  it('fails a body assertion on a response that is not JSON, saying so', async () => {
    const monitor = monitorOf(
      [
        httpNode('xml', target.url, '/xml', { response_format: 'XML' }),
        assertionNode('verify', [
          { nodeId: 'xml', subject: 'body', path: '$.status', predicate: unary('IS_NOT_NULL') },
        ]),
      ],
      [['xml', 'verify']],
    );
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.errors).toEqual([
      'verify: xml body $.status IS_NOT_NULL, got nothing (the response is XML, not JSON)',
    ]);
    expect(outcome.errorClasses).toEqual(['assertion']);
  });

  it('judges a non-2xx status with the assertions instead of failing the request', async () => {
    const monitor = monitorOf(
      [
        httpNode('cart', target.url, '/status/503'),
        assertionNode('verify', [
          { nodeId: 'cart', subject: 'status', predicate: binary('EQUAL', 200) } as Assertion,
        ]),
      ],
      [['cart', 'verify']],
    );
    const outcome = await runner.run(monitor, runContext());
    expect(outcome.steps[0]).toMatchObject({ status: 'passed', response: { status: 503 } });
    expect(outcome).toMatchObject({
      success: false,
      errors: ['verify: cart status EQUAL 200, got 503'],
      errorClasses: ['assertion'],
    });
  });
});
