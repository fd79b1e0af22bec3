// docs/openapi.json from the zod schemas (scripts/generated-files.ts says how generated files are kept).
import { buildOpenApiDocument } from '../hub/src/server/openapi-document.js';
import { version } from '../hub/src/system/version.js';
import { syncGeneratedFiles } from './generated-files.js';

const document = { 'x-generated': 'DO NOT EDIT: npm run gen', ...buildOpenApiDocument(version) };
syncGeneratedFiles([{ path: 'docs/openapi.json', content: JSON.stringify(document, null, 2) + '\n' }]);
