/**
 * Fair lanes (docs/adr/0053-fair-lanes.md): the slots of a tick's window are put in lanes by how many slots their
 * organization has before them in the window. An organization's first LANE_QUANTUM slots are in lane 1, the next
 * twice as many in lane 2, and so on, doubling, up to the last lane. Batch jobs carry their lane as their BullMQ
 * priority, so the workers of a saturated location take every organization's first slots before anyone's later
 * ones, and the tick skips only the lanes whose batches pile up: the largest organizations' last slots.
 */

/** An organization's slots in the first lane of a window; each lane after it holds twice as many. */
export const LANE_QUANTUM = 16;
/** Lanes in all: the last takes every slot past the others, an organization's 2,032nd slot of a window on. */
export const LANES = 8;
/** The lanes, as their BullMQ priorities: 1 is taken first. */
export const LANE_NUMBERS: readonly number[] = Array.from({ length: LANES }, (_, i) => i + 1);
/** The lane of every organization's first slots, queued apart (docs/adr/0064-first-lane-reserve.md). */
export const FIRST_LANE = 1;

/** The lane of the slot with `index` slots of its organization before it in the window (index 0: the first). */
export function laneOfIndex(index: number): number {
  return Math.min(LANES, 1 + Math.floor(Math.log2(1 + index / LANE_QUANTUM)));
}

/**
 * Counts the slots of each organization in one tick's window, in the order of their times, and answers the lane
 * of each next one. A tick reads its schedules in parts: one counter serves every part of the same tick.
 */
export function createLaneCounter() {
  const counts = new Map<string, number>();
  return {
    laneOf(organizationId: string): number {
      const index = counts.get(organizationId) ?? 0;
      counts.set(organizationId, index + 1);
      return laneOfIndex(index);
    },
  };
}

export type LaneCounter = ReturnType<typeof createLaneCounter>;
