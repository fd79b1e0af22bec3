/** A delivery job carries ids only (docs/contract/STYLE.md, rule 6); the handler reads the event and integration afresh. */
export interface DeliveryJobData {
  organizationId: string;
  eventId: string;
  channelKey: string;
  ruleId: string | null;
}

export interface DeliveryAttempt {
  data: DeliveryJobData;
  /** 1 for the first try. */
  attempt: number;
  /** No retry follows this attempt: its failure is final. */
  lastAttempt: boolean;
}

/** Five attempts with exponential backoff (base, 2x, 4x, 8x), then the delivery is `failed`. */
export const DELIVERY_ATTEMPTS = 5;

/**
 * The `notifications` queue, on BullMQ in production and in process for `meerkat dev` without Redis. A handler
 * that throws is retried with backoff until the last attempt; delivery is at least once.
 */
export interface DeliveryQueue {
  enqueue(data: DeliveryJobData): Promise<void>;
  consume(
    handler: (attempt: DeliveryAttempt) => Promise<void>,
    options: { concurrency: number },
  ): {
    close(): Promise<void>;
  };
  close(): Promise<void>;
}

/** One job per (event, channel): enqueueing it twice delivers once. */
export function deliveryJobId(data: DeliveryJobData): string {
  return `${data.eventId}.${Buffer.from(data.channelKey).toString('base64url')}`;
}
