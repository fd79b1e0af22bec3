/** A path that is not an RFC 9535 JSONPath query, or not a well-typed one; the message says where and why. */
export class JsonPathSyntaxError extends Error {
  constructor(problem: string, position?: number) {
    super(position === undefined ? problem : `${problem} at character ${position + 1}`);
    this.name = new.target.name;
  }
}
