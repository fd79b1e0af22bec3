import type { Matcher, SilenceCreate } from '../contract/maintenance-definition.js';
import type { Db } from '../db/database.js';
import { newId } from '../db/ids.js';
import { NotFoundError, ValidationError } from '../http/errors.js';
import type { Clock } from '../system/clock.js';
import type { Silence } from './maintenance.schema.js';
import {
  expireSilence,
  findSilence,
  insertSilence,
  listSilences,
  type SilenceRow,
} from './silence.repository.js';
import { jsonColumn } from '../db/json-column.js';

/** A silence longer than this is a mistake (a year, as Alertmanager users set "forever"): use a window. */
const MAX_SILENCE_MS = 366 * 24 * 3_600_000;
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;

const isUnit = (unit: string | undefined): unit is keyof typeof UNIT_MS =>
  unit !== undefined && Object.hasOwn(UNIT_MS, unit);

/** `1d12h` -> milliseconds; the schema has checked the shape. */
function durationMs(duration: string): number {
  let total = 0;
  for (const [, amount, unit] of duration.matchAll(/(\d+)([dhm])/g))
    if (isUnit(unit)) total += Number(amount) * UNIT_MS[unit];
  return total;
}

function refuse(path: string, message: string): never {
  throw new ValidationError(`invalid body: ${path}: ${message}`, [{ path, message }]);
}

function silenceStateAt(row: Pick<SilenceRow, 'starts_at' | 'ends_at'>, now: Date): Silence['state'] {
  if (row.ends_at <= now) return 'expired';
  return row.starts_at > now ? 'pending' : 'active';
}

function silenceRowToSilence(row: SilenceRow, now: Date): Silence {
  return {
    id: row.id,
    matchers: row.matchers,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at.toISOString(),
    comment: row.comment,
    createdBy: row.created_by,
    expiredBy: row.expired_by,
    state: silenceStateAt(row, now),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** The start and end a request asks for: `endsAt` or `duration` (one of them), after the start, within a year. */
function periodOf(body: SilenceCreate, now: Date): { start: Date; end: Date } {
  const start = body.startsAt === undefined ? now : new Date(body.startsAt);
  if (body.endsAt !== undefined && body.duration !== undefined)
    refuse('duration', 'give endsAt or duration, not both');
  const end =
    body.endsAt !== undefined
      ? new Date(body.endsAt)
      : body.duration !== undefined
        ? new Date(start.getTime() + durationMs(body.duration))
        : refuse('endsAt', 'give endsAt or duration (e.g. 2h)');
  const path = body.endsAt === undefined ? 'duration' : 'endsAt';
  if (end <= start) refuse(path, 'the silence must end after it starts');
  if (end <= now) refuse(path, 'the silence would already be over');
  if (end.getTime() - start.getTime() > MAX_SILENCE_MS)
    refuse(path, 'at most 366 days: use a maintenance window for planned, recurring quiet');
  return { start, end };
}

export function createSilenceService({ db, clock }: { db: Db; clock: Clock }) {
  return {
    async create(organizationId: string, caller: string, body: SilenceCreate): Promise<Silence> {
      const now = clock.now();
      const { start, end } = periodOf(body, now);
      const row = await insertSilence(db, {
        organization_id: organizationId,
        id: newId('sil'),
        matchers: jsonColumn(body.matchers satisfies Matcher[]),
        starts_at: start,
        ends_at: end,
        comment: body.comment,
        created_by: body.createdBy ?? caller,
        created_at: now,
        updated_at: now,
      });
      return silenceRowToSilence(row, now);
    },

    async get(organizationId: string, id: string): Promise<Silence> {
      const row = await findSilence(db, organizationId, id);
      if (row === undefined) throw new NotFoundError(`silence ${id} not found`);
      return silenceRowToSilence(row, clock.now());
    },

    async list(
      organizationId: string,
      query: { state?: Silence['state'] | undefined; limit: number; offset: number },
    ) {
      const now = clock.now();
      const { rows, total } = await listSilences(db, organizationId, { ...query, now });
      return { data: rows.map((row) => silenceRowToSilence(row, now)), total };
    },

    /** Ends the silence now; one already over is answered as it is (expiring twice is not an error). */
    async expire(organizationId: string, id: string, caller: string): Promise<Silence> {
      const now = clock.now();
      const row = await expireSilence(db, organizationId, id, { now, by: caller });
      if (row === undefined) throw new NotFoundError(`silence ${id} not found`);
      return silenceRowToSilence(row, now);
    },
  };
}

export type SilenceService = ReturnType<typeof createSilenceService>;
