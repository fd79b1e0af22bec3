import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

// yaml is about 80 CommonJS modules, a tenth of a second of every start: `get monitors` with a table, `--help` and
// most calls neither read nor print YAML, so the modules on their path (the output formats, the client config,
// manifests) load it on first use (docs/benchmarks.md, the front door).
const require = createRequire(import.meta.url);

export function yaml(): typeof Yaml {
  return require('yaml') as typeof Yaml;
}
