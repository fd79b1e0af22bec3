// Its own file, so the operator and the CLI's client settings can throw it without loading the hub's settings
// (and, through them, the egress rules and the assertion budget).
/** A setting (an environment variable or a flag) that is missing or malformed: the process exits 2 naming it. */
export class InvalidSettingError extends Error {
  constructor(
    readonly setting: string,
    readonly reason: string,
  ) {
    super(`invalid setting ${setting}: ${reason}`);
    this.name = new.target.name;
  }
}
