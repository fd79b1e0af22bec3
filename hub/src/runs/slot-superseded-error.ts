/**
 * Thrown by an executor for a scheduled slot that got its check place only once the next slot of its schedule
 * was due: an overloaded worker sheds it (counted as a gap, `shed`) rather than checking it late,
 * so what it does check stays within one period of its time (docs/adr/0040-overload-is-shed.md). No check was
 * sent and nothing was written.
 */
export class SlotSupersededError extends Error {
  constructor() {
    super('the next slot of this schedule was due before this one got a check place');
    this.name = new.target.name;
  }
}
