import type { DbTransaction } from '../db/database.js';
import { createHash } from 'node:crypto';
import type { NotificationDefinition } from '../contract/notification-definition.js';
import { newId } from '../db/ids.js';
import { ValidationError } from '../http/errors.js';
import { findIntegrationsForRouting, type IntegrationRow } from '../integrations/integration.repository.js';
import type { MonitorDependant } from '../monitors/monitor-dependants.js';
import type { Clock } from '../system/clock.js';
import {
  deleteRules,
  insertRules,
  listRulesOfMonitor,
  updateRuleDefinition,
  type NotificationRuleRow,
  type RuleSettings,
} from './notification-rule.repository.js';
import { jsonColumn } from '../db/json-column.js';

const DEFAULT_COOLDOWN_MINUTES = 15;

/** JSON with keys sorted at every level, so equal definitions hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function ruleIdentityHash(definition: NotificationDefinition, integrationId: string): string {
  const identity = canonicalJson({ trigger: definition.trigger, routing: definition.routing, integrationId });
  return createHash('sha256').update(identity).digest('hex');
}

async function resolveIntegration(
  tx: DbTransaction,
  organizationId: string,
  environment: string,
  definition: NotificationDefinition,
  index: number,
): Promise<IntegrationRow> {
  const channelType = definition.routing.channelType;
  const path = `notifications[${index}].integration`;
  const refuse = (message: string): never => {
    throw new ValidationError(`invalid body: ${path}: ${message}`, [{ path, message }]);
  };
  if (definition.integration !== undefined) {
    const [named] = await findIntegrationsForRouting(tx, organizationId, environment, {
      name: definition.integration,
    });
    if (named === undefined)
      return refuse(`no integration named "${definition.integration}" in environment "${environment}"`);
    if (named.provider_type !== channelType)
      return refuse(`integration "${named.name}" is ${named.provider_type}, the routing is ${channelType}`);
    return named;
  }
  const candidates = await findIntegrationsForRouting(tx, organizationId, environment, {
    providerType: channelType,
  });
  if (candidates.length === 1) return candidates[0] as IntegrationRow;
  if (candidates.length === 0)
    return refuse(
      `no enabled ${channelType} integration in environment "${environment}": create one or name one`,
    );
  const names = candidates.map((c) => `"${c.name}"`).join(', ');
  return refuse(`several enabled ${channelType} integrations (${names}): name one`);
}

/** What of a rule its definition may change without changing the rule's identity. */
function settingsOf(
  definition: NotificationDefinition,
  cooldown: number,
  integrationName: string,
): RuleSettings {
  return {
    cooldown_minutes: cooldown,
    integration_name: integrationName,
    repeat_minutes: definition.repeatMinutes ?? null,
    send_resolved: definition.sendResolved ?? false,
    held_notifications: definition.heldNotifications ?? 'deliver',
  };
}

function settingsChanged(rule: NotificationRuleRow, settings: RuleSettings): boolean {
  return (Object.keys(settings) as Array<keyof RuleSettings>).some((key) => rule[key] !== settings[key]);
}

/**
 * Keeps a monitor's notification rules equal to its `notifications`: a rule whose (trigger, routing,
 * integration) is unchanged keeps its id, `lastTriggeredAt`, `enabled` and trigger state; new ones are
 * inserted, removed ones deleted. A definition that resolves to no integration refuses the monitor change.
 */
export function notificationRuleDependant(clock: Clock): MonitorDependant {
  return {
    name: 'notification-rules',
    async sync(tx, change) {
      const { organizationId, monitor } = change;
      if (change.kind === 'delete') return; // the rules go with the monitor (foreign key cascade)
      // A monitor created by this change has no rules yet (they go with it by the foreign key): nothing to read.
      const stored =
        change.previous === undefined ? [] : await listRulesOfMonitor(tx, organizationId, monitor.id);
      const existing = new Map(stored.map((r) => [r.identity_hash, r]));
      const now = clock.now();
      const fresh = [];
      const kept = new Set<string>();
      for (const [index, definition] of (monitor.notifications ?? []).entries()) {
        const integration = await resolveIntegration(
          tx,
          organizationId,
          monitor.environment,
          definition,
          index,
        );
        const hash = ruleIdentityHash(definition, integration.id);
        const cooldown = definition.cooldownMinutes ?? DEFAULT_COOLDOWN_MINUTES;
        const rule = existing.get(hash);
        if (kept.has(hash)) continue; // the same notification listed twice is one rule
        kept.add(hash);
        const settings = settingsOf(definition, cooldown, integration.name);
        if (rule !== undefined) {
          if (settingsChanged(rule, settings))
            await updateRuleDefinition(tx, organizationId, rule.id, { ...settings, updated_at: now });
          continue;
        }
        fresh.push({
          organization_id: organizationId,
          id: newId('rul'),
          monitor_id: monitor.id,
          identity_hash: hash,
          trigger: jsonColumn(definition.trigger),
          routing: jsonColumn(definition.routing),
          integration_id: integration.id,
          ...settings,
          state: jsonColumn({}),
          created_at: now,
          updated_at: now,
        });
      }
      const removed = [...existing.values()].filter((r) => !kept.has(r.identity_hash)).map((r) => r.id);
      await deleteRules(tx, organizationId, removed);
      await insertRules(tx, fresh);
    },
  };
}
