import { AppError, NotFoundError, ValidationError } from '../http/errors.js';

// Every message here names secrets and environments, never a value: these errors reach HTTP answers, run
// errors and logs.

/** A name that is not in the environment's map (or a map that does not exist). */
export class SecretNotFoundError extends NotFoundError {
  constructor(
    readonly secretName: string,
    readonly environment: string,
  ) {
    super(`secret ${secretName} not found in ${environment}`);
  }
}

/** A pinned version of the environment's map that does not exist or can no longer be read. */
export class SecretVersionNotFoundError extends NotFoundError {
  constructor(
    readonly secretName: string,
    readonly version: string,
    readonly environment: string,
  ) {
    super(`secret ${secretName} version ${version} not found in ${environment}`);
  }
}

/** The local backend keeps only the current map, so a pinned version is a mistake of the caller. */
export class SecretVersionsUnsupportedError extends ValidationError {
  constructor() {
    const message = 'secret versions are only kept by the gcp backend; use version "latest"';
    super(message, [{ path: 'version', message }]);
  }
}

/** A `$secret.field` that the secret's value does not have. */
export class SecretFieldError extends ValidationError {
  constructor(secretName: string, environment: string, field: string, reason: string) {
    const message = `secret ${secretName} in ${environment} has no field ${field}: ${reason}`;
    super(message, [{ path: '$secret.field', message }]);
  }
}

/** Secret Manager refused a call for a reason retrying cannot fix (credentials, IAM, a bad request). */
export class SecretStoreError extends AppError {
  readonly code = 'internal';
}
