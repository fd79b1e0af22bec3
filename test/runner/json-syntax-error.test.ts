import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonSyntaxFault } from '../../hub/src/runner/json-syntax-error.js';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

// JSON text with one character inserted, removed or replaced: mostly broken, sometimes still JSON.
const damagedJson = fc
  .tuple(fc.json(), fc.nat(), fc.constantFrom('insert', 'remove', 'replace'), fc.string({ maxLength: 1 }))
  .map(([json, at, how, char]) => {
    const index = at % (json.length + 1);
    const skip = how === 'insert' ? 0 : 1;
    return json.slice(0, index) + (how === 'remove' ? '' : char) + json.slice(index + skip);
  });

describe('finding where a text stops being JSON', () => {
  it('finds a fault exactly when JSON.parse refuses the text', () => {
    const anyText = fc.oneof(
      damagedJson,
      fc.json(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom(...'{}[]":, \n\\u0aetrfnlse1-.E+'.split('')) }),
    );
    fc.assert(
      fc.property(anyText, (text) => {
        expect(findJsonSyntaxFault(text) === undefined).toBe(parses(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('names the line, the column and the position of the fault, and what it is', () => {
    expect(findJsonSyntaxFault('{"a": 1,}')).toEqual({
      problem: 'expected a property name in double quotes',
      position: 8,
      line: 1,
      column: 9,
    });
    expect(findJsonSyntaxFault('{\n  "a": [1, 2\n}')).toMatchObject({
      problem: "expected ',' or ']'",
      line: 3,
      column: 1,
    });
    expect(findJsonSyntaxFault('CANARY')).toMatchObject({ problem: 'unexpected character', position: 0 });
    expect(findJsonSyntaxFault('{"a": "b')).toMatchObject({ problem: 'unterminated string', position: 6 });
    expect(findJsonSyntaxFault('[1] 2')).toMatchObject({
      problem: 'unexpected character after the JSON value',
      position: 4,
    });
    expect(findJsonSyntaxFault('"a\u0001"')).toMatchObject({ problem: 'control character in a string' });
    expect(findJsonSyntaxFault('["\\x"]')).toMatchObject({ problem: 'invalid escape in a string' });
    expect(findJsonSyntaxFault('[')).toMatchObject({ problem: 'unexpected end of input', position: 1 });
  });

  it('reads a body nested a million levels deep without exhausting the stack', () => {
    const deep = '['.repeat(1_000_000);
    expect(findJsonSyntaxFault(deep)).toMatchObject({
      problem: 'unexpected end of input',
      position: 1_000_000,
    });
  });
});
