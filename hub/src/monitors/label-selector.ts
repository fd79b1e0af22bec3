import { labelKeyProblem, labelValueProblem } from '../contract/labels.js';

/**
 * Kubernetes' equality-based label selector, as `kubectl get -l` takes it: requirements joined by commas, all of
 * which must hold. `key=value` (or `==`), `key!=value` (also true without the key, as in Kubernetes), `key` (has
 * it), `!key` (has it not). The set-based forms (`in`, `notin`) are not taken: a clear 400 rather than a guess.
 */
export type LabelRequirement =
  { key: string; operator: '=' | '!='; value: string } | { key: string; operator: 'exists' | '!exists' };

export const MAX_SELECTOR_LENGTH = 1024;
const MAX_REQUIREMENTS = 20;

export class LabelSelectorError extends Error {}

function parseRequirement(text: string): LabelRequirement {
  const part = text.trim();
  const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/.exec(part);
  let requirement: LabelRequirement;
  if (match !== null) {
    const [, key = '', operator, value = ''] = match;
    requirement = { key, operator: operator === '!=' ? '!=' : '=', value };
  } else if (part.startsWith('!')) requirement = { key: part.slice(1).trim(), operator: '!exists' };
  else requirement = { key: part, operator: 'exists' };
  if (/\s(in|notin)\s*\(/.test(` ${part}`))
    throw new LabelSelectorError(`"${part}": set-based requirements (in, notin) are not supported`);
  const problem =
    labelKeyProblem(requirement.key) ??
    ('value' in requirement ? labelValueProblem(requirement.value) : undefined);
  if (problem !== undefined) throw new LabelSelectorError(`"${part}": ${problem}`);
  return requirement;
}

/** The requirements of a selector; throws LabelSelectorError naming the one that is wrong. */
export function parseLabelSelector(selector: string): LabelRequirement[] {
  if (selector.trim() === '') return [];
  const parts = selector.split(',');
  if (parts.length > MAX_REQUIREMENTS)
    throw new LabelSelectorError(`at most ${MAX_REQUIREMENTS} requirements in a label selector`);
  return parts.map(parseRequirement);
}
