/**
 * Thrown by an executor for a scheduled slot that got its check place only once the next slot of its schedule
 * was due, or that an over-full worker took out of line for newer slots (the oldest of the organization with the
 * most waiting): an overloaded worker sheds it (counted as a gap, `shed`) rather than checking it late,
 * so what it does check stays within one period of its time (docs/adr/0040-overload-is-shed.md). No check was
 * sent and nothing was written.
 */
export class SlotSupersededError extends Error {
  constructor(reason = 'the next slot of this schedule was due before this one got a check place') {
    super(reason);
    this.name = new.target.name;
  }
}
