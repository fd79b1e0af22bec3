// Every fenced `sh`, `bash` and `console` block of README.md and docs/*.md, and the commands of the chart's
// NOTES.txt (indented, unfenced), as doc-commands.test.ts accounts for them.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const repo = fileURLToPath(new URL('../../', import.meta.url));

export interface CommandBlock {
  /** The file, from the repository's root. */
  file: string;
  /** The block's first non-empty line, trimmed: what the ledger names it by. */
  first: string;
  text: string;
}

const firstLine = (text: string) =>
  text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim() ?? '';

export function docCommandBlocks(): CommandBlock[] {
  const pages = [
    'README.md',
    ...readdirSync(`${repo}docs`)
      .filter((file) => file.endsWith('.md'))
      .map((file) => `docs/${file}`),
  ];
  const blocks = pages.flatMap((file) =>
    [...readFileSync(`${repo}${file}`, 'utf8').matchAll(/^```(?:sh|bash|console)\n([\s\S]*?)^```/gm)].map(
      ([, text = '']) => ({ file, first: firstLine(text), text }),
    ),
  );
  // NOTES.txt: each numbered step's indented command lines are one block.
  const notes = 'charts/meerkat/templates/NOTES.txt';
  const steps = readFileSync(`${repo}${notes}`, 'utf8')
    .split(/^\d+\. /m)
    .slice(1);
  for (const step of steps) {
    const text = step
      .split('\n')
      .filter((line) => /^ {4,}\S/.test(line))
      .map((line) => line.trim())
      .join('\n');
    if (text !== '') blocks.push({ file: notes, first: firstLine(text), text });
  }
  return blocks;
}
