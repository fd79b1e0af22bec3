#!/usr/bin/env node
// The one entry point of every `meerkat` sub-command. A built tree (the container image) runs the compiled
// JavaScript; a checkout runs the TypeScript sources through tsx, so `npm ci && npm start` needs no build step.
// See docs/adr/0001-running-typescript-sources.md.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = fileURLToPath(new URL('../dist/hub/src/cli/main.js', import.meta.url));
if (existsSync(compiled)) {
  await import(compiled);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../hub/src/cli/main.ts');
}
