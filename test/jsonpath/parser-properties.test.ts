import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonPathSyntaxError } from '../../hub/src/jsonpath/jsonpath-syntax-error.js';
import { parseJsonPath } from '../../hub/src/jsonpath/parse-jsonpath.js';

// The parser's promise (ADR 0010): linear in the path, whatever the path, and a JsonPathSyntaxError for anything
// that is not RFC 9535. Work is counted, not timed: the parser reads its text only through the string's methods,
// so a String that counts those calls counts its steps.

const COUNTED_METHODS = ['charAt', 'codePointAt', 'startsWith', 'slice'] as const;

/** The number of reads parsing `text` makes; and whether it parsed. Any error but JsonPathSyntaxError escapes. */
function parseSteps(text: string): { steps: number; parsed: boolean } {
  let steps = 0;
  const plain = text as unknown as Record<(typeof COUNTED_METHODS)[number], (...args: unknown[]) => unknown>;
  const counting = new String(text) as unknown as Record<string, unknown>;
  for (const method of COUNTED_METHODS) {
    counting[method] = (...args: unknown[]) => {
      steps += 1;
      return plain[method](...args);
    };
  }
  try {
    parseJsonPath(counting as unknown as string);
    return { steps, parsed: true };
  } catch (error) {
    if (!(error instanceof JsonPathSyntaxError)) throw error;
    return { steps, parsed: false };
  }
}

/** Reads per character of path, with room: each character is looked at by a few rules, a constant number. */
const STEPS_PER_CHARACTER = 12;

const name = fc.constantFrom('a', 'b', 'name', 'x1', '_k', 'é');
const quoted = fc.constantFrom("'a'", '"b"', "'it\\'s'", '"\\u00e9"', "''");
const integer = fc.constantFrom('0', '1', '-1', '42', '-7');
const literal = fc.oneof(integer, quoted, fc.constantFrom('true', 'false', 'null', '1.5e3', '-0.25'));
const blank = fc.constantFrom('', ' ', '  ', '\t', '\n');
const singular = fc
  .array(
    fc.oneof(
      name.map((n) => `.${n}`),
      integer.map((i) => `[${i}]`),
      quoted.map((q) => `[${q}]`),
    ),
    {
      maxLength: 3,
    },
  )
  .chain((segments) => fc.constantFrom('@', '$').map((root) => root + segments.join('')));

const { filter } = fc.letrec<{ filter: string; query: string }>((tie) => ({
  filter: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .tuple(fc.oneof(singular, literal), blank, fc.constantFrom('==', '!=', '<', '<=', '>', '>='), blank)
      .chain(([left, b1, op, b2]) =>
        fc.oneof(singular, literal).map((right) => `${left}${b1}${op}${b2}${right}`),
      ),
    singular,
    tie('query').map((query) => `@${query.slice(1)}`),
    fc
      .tuple(tie('filter'), blank, fc.constantFrom('&&', '||'), blank, tie('filter'))
      .map((parts) => parts.join('')),
    fc.tuple(blank, tie('filter'), blank).map(([b1, inner, b2]) => `(${b1}${inner}${b2})`),
    tie('filter').map((inner) => `!(${inner})`),
    singular.map((query) => `length(${query}) == 2`),
    tie('query').map((query) => `count(@${query.slice(1)}) > 0`),
    fc.tuple(fc.constantFrom('match', 'search'), singular, quoted).map(([f, q, p]) => `${f}(${q}, ${p})`),
    tie('query').map((query) => `value(@${query.slice(1)}) == 1`),
  ),
  query: fc
    .array(
      fc.oneof(
        name.map((n) => `.${n}`),
        name.map((n) => `..${n}`),
        fc.constantFrom('.*', '..*', '[*]', '[1:]', '[::-1]', '[0:5:2]', '[ 1 , "a" ]'),
        integer.map((i) => `[${i}]`),
        quoted.map((q) => `[${q}]`),
        fc.tuple(blank, tie('filter')).map(([b, condition]) => `[?${b}${condition}]`),
      ),
      { maxLength: 4 },
    )
    .map((segments) => `$${segments.join('')}`),
}));
const validQuery = filter.map((condition) => `$.items[?${condition}]`);

// Valid queries with one character inserted, removed or replaced, and text from JSONPath's alphabet.
const damagedQuery = fc
  .tuple(validQuery, fc.nat(), fc.constantFrom('insert', 'remove', 'replace'), fc.string({ maxLength: 1 }))
  .map(([query, at, how, char]) => {
    const index = at % (query.length + 1);
    return (
      query.slice(0, index) + (how === 'remove' ? '' : char) + query.slice(index + (how === 'insert' ? 0 : 1))
    );
  });
const jsonPathAlphabet = fc
  .string({ unit: fc.constantFrom(...'$@.*[]?()!&|=<>,:\'"\\ -0129abelnrtu'.split('')), maxLength: 80 })
  .map((text) => `$${text}`);
const anyText = fc.oneof(validQuery, damagedQuery, jsonPathAlphabet, fc.string({ unit: 'binary' }));

describe('the JSONPath parser', () => {
  it('parses every query the grammar makes', () => {
    fc.assert(
      fc.property(validQuery, (query) => {
        expect(parseSteps(query).parsed).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('throws nothing but JsonPathSyntaxError, and reads a bounded number of times per character', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        expect(parseSteps(text).steps).toBeLessThanOrEqual(STEPS_PER_CHARACTER * (text.length + 1));
      }),
      { numRuns: 3000 },
    );
  });

  // The shapes that make a backtracking parser exponential: nested parentheses and functions, long chains.
  const families: Array<[string, (k: number) => string]> = [
    ['nested parentheses', (k) => `$[?${'('.repeat(k)}@.a == 1${')'.repeat(k)}]`],
    ['nested negations', (k) => `$[?${'!('.repeat(k)}@.a${')'.repeat(k)}]`],
    ['nested count()', (k) => `$[?${'count(('.repeat(k)}@.a${'))'.repeat(k)} == 1]`],
    ['a chain of && and ||', (k) => `$[?@.a${' && @.b || @.c'.repeat(k)}]`],
    ['an unclosed nesting', (k) => `$[?${'('.repeat(k)}@.a == 1`],
    ['segments', (k) => `$${'..a[0]["b"]'.repeat(k)}`],
    ['blanks', (k) => `$[${' '.repeat(k)}0${' '.repeat(k)}]`],
  ];

  it.each(families)('grows linearly with %s', (_shape, pathOf) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), (k) => {
        // Each level or link adds the same work: the steps are an affine function of k.
        const [one, two, three] = [k, 2 * k, 3 * k].map((n) => parseSteps(pathOf(n)).steps) as [
          number,
          number,
          number,
        ];
        expect(two).toBeGreaterThan(one);
        expect(three - two).toBe(two - one);
        expect(three).toBeLessThanOrEqual(STEPS_PER_CHARACTER * (pathOf(3 * k).length + 1));
      }),
      { numRuns: 30 },
    );
  });
});
