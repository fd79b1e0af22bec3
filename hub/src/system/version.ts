import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package version, found by walking up from this file (the same from sources and from `dist/`). */
function readVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
      if (
        typeof manifest === 'object' &&
        manifest !== null &&
        'name' in manifest &&
        manifest.name === 'meerkat' &&
        'version' in manifest &&
        typeof manifest.version === 'string'
      )
        return manifest.version;
    } catch {
      // no package.json here: keep walking up
    }
    const parent = dirname(directory);
    if (parent === directory) return '0.0.0';
    directory = parent;
  }
}

export const version = readVersion();
