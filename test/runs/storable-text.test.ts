import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { storableJson, storableJsonText, storableText } from '../../hub/src/contract/storable-text.js';

const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

// Strings rich in what matters here: NUL, both halves of surrogate pairs, backslashes and the text "u0000".
const hostileString = fc.string({
  unit: fc.oneof(
    fc.constantFrom('\0', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\\', 'u', '0', '"', '\u{1F600}'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
});

describe('text PostgreSQL can store', () => {
  it('turns NUL into the six characters \\u0000 and a lone surrogate into U+FFFD, and keeps the rest', () => {
    expect(storableText('x\0y')).toBe('x\\u0000y');
    expect(storableText('a\uD800b\uDC00')).toBe('a\uFFFDb\uFFFD');
    expect(storableText('pair \u{1F600} and \\u0000 as text')).toBe('pair \u{1F600} and \\u0000 as text');
  });

  it('rewrites JSON text exactly as storableText rewrites each string and key in it', () => {
    const value = fc.dictionary(hostileString, fc.oneof(hostileString, fc.array(hostileString)), {
      maxKeys: 4,
    });
    fc.assert(
      fc.property(value, (input) => {
        const expected = Object.fromEntries(
          Object.entries(input).map(([key, child]) => [
            storableText(key),
            Array.isArray(child) ? child.map(storableText) : storableText(child),
          ]),
        );
        const stored = JSON.parse(storableJsonText(JSON.stringify(input))) as Record<string, unknown>;
        expect(stored).toEqual(expected);
        expect(storableJson(input)).toEqual(expected);
        const strings = Object.entries(stored).flat(2) as string[];
        expect(strings.filter((text) => UNSTORABLE.test(text))).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });

  it('rewrites JSON nested far deeper than any recursion could follow', () => {
    const depth = 200_000;
    const deep = `${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`;
    expect(storableJsonText(deep)).toBe(`${'['.repeat(depth)}"\\\\u0000"${']'.repeat(depth)}`);
  });
});
