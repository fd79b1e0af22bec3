import { z } from 'zod';

/**
 * Heartbeat (push) monitors: the monitored job pings the hub, the hub runs nothing (docs/monitors.md,
 * docs/adr/0034-heartbeat-monitors.md). The monitor's `frequency` is the period a ping is expected in.
 */
const MAX_GRACE_SECONDS = 7 * 86_400;

export const heartbeatSchema = z
  .strictObject({
    grace_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_SECONDS)
      .optional()
      .meta({
        description:
          'grace_seconds: optional, default 0. How long after a period ends without a ping the period counts ' +
          'as missed (0 to 604800).',
      }),
  })
  .meta({
    id: 'Heartbeat',
    description:
      'heartbeat: optional. Makes this a heartbeat monitor: no nodes, edges or locations; the job pings its ' +
      'ping URL at least once per `frequency`, and a period without a ping (plus the grace) fails a run.',
  });
export type Heartbeat = z.infer<typeof heartbeatSchema>;

/** The location heartbeat runs are recorded under: they are judged by the hub, not run at a location. */
export const HEARTBEAT_LOCATION = 'heartbeat';

/** The public ping path a heartbeat token is used on (`/ping/<token>`, `/start` and `/fail` after it). */
export const PING_PATH_PREFIX = '/ping/';

/** What `POST /monitor/{id}/heartbeat-token` answers, once: the only time the token is shown. */
export const heartbeatTokenSchema = z
  .object({
    token: z.string().meta({ description: 'The secret ping token; only its hash is stored.' }),
    pingPath: z.string().meta({
      description: 'Where the job pings: GET or POST this path on the hub; `/start` and `/fail` after it.',
    }),
  })
  .meta({ id: 'HeartbeatToken' });
export type HeartbeatToken = z.infer<typeof heartbeatTokenSchema>;
