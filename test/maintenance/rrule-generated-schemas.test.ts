// The RRULE schedule form reaches the generated contracts: the MaintenanceWindow CRD and the OpenAPI document.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

interface Variant {
  properties: { type: { enum: string[] } };
  required: string[];
}
interface ScheduleSchema {
  properties: Record<string, { type?: string; maxLength?: number }>;
  oneOf: Variant[];
}

describe('generated schemas of an RRULE window', () => {
  it('the MaintenanceWindow CRD takes schedule.type rrule with its rule, start, zone and duration', () => {
    const crd = parseYaml(readFileSync('crds/maintenancewindows.meerkat.dev.yaml', 'utf8')) as {
      spec: {
        versions: {
          schema: { openAPIV3Schema: { properties: { spec: { properties: { schedule: ScheduleSchema } } } } };
        }[];
      };
    };
    const schedule = crd.spec.versions[0]?.schema.openAPIV3Schema.properties.spec.properties.schedule;
    expect(schedule?.properties.rrule).toMatchObject({ type: 'string', maxLength: 500 });
    const rule = schedule?.oneOf.find((v) => v.properties.type.enum.includes('rrule'));
    expect(rule?.required).toEqual(['type', 'rrule', 'startsAt', 'timezone', 'durationMinutes']);
  });

  it('the OpenAPI document has the rrule variant of MaintenanceSchedule', () => {
    const openapi = JSON.parse(readFileSync('docs/openapi.json', 'utf8')) as {
      components: {
        schemas: Record<string, { oneOf?: { properties: Record<string, unknown>; required: string[] }[] }>;
      };
    };
    const variants = openapi.components.schemas.MaintenanceSchedule?.oneOf ?? [];
    const rule = variants.find((v) => JSON.stringify(v.properties.type).includes('rrule'));
    expect(rule?.required).toEqual(
      expect.arrayContaining(['rrule', 'startsAt', 'timezone', 'durationMinutes']),
    );
    expect(rule?.properties).not.toHaveProperty('cron');
  });
});
