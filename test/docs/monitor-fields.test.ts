// docs/monitors.md against the contract's zod schemas: every field of the definition, of every node type, of every
// assertion subject and of a heartbeat is named in the document, and the table of subjects per node type is the
// contract's. A field added to a schema without its documentation fails here.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { assertionSchema, SUBJECTS_OF_NODE_TYPE } from '../../hub/src/contract/assertion.js';
import { heartbeatSchema } from '../../hub/src/contract/heartbeat.js';
import {
  frequencySchema,
  monitorDefinitionSchema,
  nodeSchema,
} from '../../hub/src/contract/monitor-definition.js';

const doc = readFileSync(fileURLToPath(new URL('../../docs/monitors.md', import.meta.url)), 'utf8');

type ObjectSchema = z.ZodObject<Record<string, z.ZodType>>;
const fieldsOf = (schema: ObjectSchema) => Object.keys(schema.shape);
const literalOf = (schema: ObjectSchema, key: string) =>
  String((schema.shape[key] as z.ZodLiteral<string>).value);

/** The paragraph that starts with **`TYPE`**, up to the next node type's or the next heading. */
function paragraphOf(type: string): string {
  const start = doc.indexOf(`**\`${type}\`**:`);
  expect(start, `docs/monitors.md has no paragraph for ${type}`).toBeGreaterThanOrEqual(0);
  const rest = doc.slice(start + 1);
  const ends = [rest.search(/\n\*\*`[A-Z_]+`\*\*:/), rest.indexOf('\n#')].filter((i) => i >= 0);
  return rest.slice(0, Math.min(...ends));
}

/** The rows of the markdown table whose header row starts with `| header`. */
function tableRows(header: string): string[] {
  const start = doc.indexOf(`| ${header}`);
  expect(start, `docs/monitors.md has no table headed ${header}`).toBeGreaterThanOrEqual(0);
  const lines = doc.slice(start).split('\n');
  const end = lines.findIndex((line) => !line.startsWith('|'));
  return lines.slice(2, end);
}

describe('docs/monitors.md documents every field of the contract', () => {
  it('names every field of the definition, its frequency and a heartbeat', () => {
    const rows = tableRows('Field ');
    for (const field of fieldsOf(monitorDefinitionSchema))
      expect(
        rows.some((row) => row.startsWith(`| \`${field}\``)),
        field,
      ).toBe(true);
    const frequency = rows.find((row) => row.startsWith('| `frequency`')) ?? '';
    for (const field of fieldsOf(frequencySchema)) expect(frequency, `frequency.${field}`).toContain(field);
    const heartbeat = rows.find((row) => row.startsWith('| `heartbeat`')) ?? '';
    for (const field of fieldsOf(heartbeatSchema))
      expect(heartbeat, `heartbeat.${field}`).toContain(`\`${field}\``);
  });

  it('names every field of every node type in its paragraph', () => {
    for (const variant of nodeSchema.options as unknown as ObjectSchema[]) {
      const type = literalOf(variant, 'type');
      const paragraph = paragraphOf(type);
      for (const field of fieldsOf(variant).filter((f) => f !== 'type'))
        expect(paragraph, `${type}.${field}`).toContain(`\`${field}\``);
    }
  });

  it('has a row for every assertion subject, naming its extra fields', () => {
    const rows = tableRows('subject ');
    for (const variant of assertionSchema.options as unknown as ObjectSchema[]) {
      const subject = literalOf(variant, 'subject');
      const row = rows.find((r) => r.startsWith(`| \`${subject}\``));
      expect(row, `subject ${subject}`).toBeDefined();
      for (const field of fieldsOf(variant).filter((f) => !['nodeId', 'subject', 'predicate'].includes(f)))
        expect(row, `${subject}.${field}`).toContain(`\`${field}\``);
    }
    expect(doc).toContain('`nodeId`');
  });

  it('lists, per node type, exactly the subjects the contract gives it', () => {
    const rows = tableRows('node type ');
    expect(rows).toHaveLength(Object.keys(SUBJECTS_OF_NODE_TYPE).length);
    for (const [type, subjects] of Object.entries(SUBJECTS_OF_NODE_TYPE)) {
      const row = rows.find((r) => r.startsWith(`| \`${type}\``));
      expect(row, `node type ${type}`).toBeDefined();
      // The subjects are the code spans outside parentheses (which explain them).
      const cell = (row ?? '').split('|')[2]!.replace(/\([^)]*\)/g, '');
      const named = [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]);
      expect(new Set(named), type).toEqual(new Set(subjects));
    }
  });
});
