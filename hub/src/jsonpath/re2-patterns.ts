import { RE2JS } from 're2js';
import { translateIRegexp } from './i-regexp.js';
import type { CompiledPattern, PatternLookup } from './standard-functions.js';

/**
 * A lookup that compiles each I-Regexp once, to RE2 (linear-time matching). Patterns may come from the document
 * (`match(@.code, @.pattern)`), so the cache is bounded: past `limit` patterns the oldest is forgotten.
 */
export function createRe2Patterns(limit = 256): PatternLookup {
  const compiled = new Map<string, CompiledPattern | null>();
  return (pattern) => {
    const known = compiled.get(pattern);
    if (known !== undefined) return known ?? undefined;
    const translated = translateIRegexp(pattern);
    let result: CompiledPattern | null = null;
    if ('re2' in translated) {
      try {
        result = RE2JS.compile(translated.re2);
      } catch {
        // Within I-Regexp but past RE2's size limits: like an invalid pattern, it matches nothing (RFC 9535).
        result = null;
      }
    }
    for (const oldest of compiled.keys()) {
      if (compiled.size < limit) break;
      compiled.delete(oldest);
    }
    compiled.set(pattern, result);
    return result ?? undefined;
  };
}
