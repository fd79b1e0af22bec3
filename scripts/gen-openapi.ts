// Writes docs/openapi.json from the zod schemas (`npm run gen`), or with --check fails when the committed copy
// has drifted from them (`npm run check`). The file is generated: DO NOT EDIT it by hand.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../hub/src/openapi/document.js';
import { version } from '../hub/src/system/version.js';

const target = new URL('../docs/openapi.json', import.meta.url);
const generated =
  JSON.stringify({ 'x-generated': 'DO NOT EDIT: npm run gen', ...buildOpenApiDocument(version) }, null, 2) +
  '\n';

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing counts as drift
  }
  if (committed !== generated) {
    process.stderr.write(
      'docs/openapi.json is out of date with the zod schemas: run `npm run gen` and commit it\n',
    );
    process.exit(1);
  }
  process.stdout.write('docs/openapi.json matches the schemas\n');
} else {
  writeFileSync(target, generated);
  process.stdout.write('wrote docs/openapi.json\n');
}
