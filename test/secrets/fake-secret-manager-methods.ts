// The Secret Manager methods the gcp backend calls, over in-memory state, with the real service's checks and
// status codes (NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, INVALID_ARGUMENT, PERMISSION_DENIED).
import { status } from '@grpc/grpc-js';

export type VersionState = 'ENABLED' | 'DISABLED' | 'DESTROYED';

export interface StoredVersion {
  number: number;
  state: VersionState;
  /** The payload as text; gone once the version is destroyed. */
  payload: string | undefined;
}

export interface StoredSecret {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  replication: unknown;
  versions: StoredVersion[];
}

export interface SecretManagerState {
  project: string;
  /** By resource name, `projects/{project}/secrets/{id}`. */
  secrets: Map<string, StoredSecret>;
}

export type Method = (request: Record<string, unknown>) => unknown;

export class RpcError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
  }
}

const SECRET_ID = /^[A-Za-z0-9_-]{1,255}$/;
const LABEL_KEY = /^[\p{Ll}\p{Lo}][\p{Ll}\p{Lo}\p{N}_-]{0,62}$/u;
const LABEL_VALUE = /^[\p{Ll}\p{Lo}\p{N}_-]{0,63}$/u;
const ANNOTATION_KEY = /^[A-Za-z0-9]([A-Za-z0-9_.-]{0,61}[A-Za-z0-9])?$/;
const PAYLOAD_LIMIT = 64 * 1024;
/** Small, so that the client library's automatic paging is exercised. */
const PAGE_SIZE = 3;

function timestamp() {
  const ms = Date.now();
  return { seconds: String(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 };
}

function versionResource(secretName: string, version: StoredVersion) {
  return { name: `${secretName}/versions/${version.number}`, state: version.state, createTime: timestamp() };
}

/** `state:ENABLED` terms joined by OR, as the real service's filter syntax writes them. */
function parseStateFilter(filter: string): string[] | undefined {
  if (filter === '') return undefined;
  const states = filter
    .split(' OR ')
    .map((term) => /^state:(ENABLED|DISABLED|DESTROYED)$/.exec(term.trim())?.[1]);
  if (states.some((state) => state === undefined)) {
    throw new RpcError(status.INVALID_ARGUMENT, `unsupported filter ${filter}`);
  }
  return states as string[];
}

export function secretManagerMethods({ project, secrets }: SecretManagerState): Record<string, Method> {
  const findSecret = (name: unknown): StoredSecret => {
    const secret = secrets.get(String(name));
    if (secret === undefined) throw new RpcError(status.NOT_FOUND, `Secret [${String(name)}] not found.`);
    return secret;
  };
  const findVersion = (name: unknown): StoredVersion => {
    const match = /^(projects\/[^/]+\/secrets\/[^/]+)\/versions\/([^/]+)$/.exec(String(name));
    if (match === null) throw new RpcError(status.INVALID_ARGUMENT, `bad version name ${String(name)}`);
    const versions = findSecret(match[1]).versions;
    const version =
      match[2] === 'latest' ? versions.at(-1) : versions.find((v) => String(v.number) === match[2]);
    if (version === undefined)
      throw new RpcError(status.NOT_FOUND, `Secret Version [${String(name)}] not found.`);
    return version;
  };

  return {
    CreateSecret: ({ parent, secretId, secret }) => {
      const { replication, labels, annotations } = secret as Omit<StoredSecret, 'versions'>;
      if (parent !== `projects/${project}`)
        throw new RpcError(status.PERMISSION_DENIED, `no access to ${String(parent)}`);
      if (!SECRET_ID.test(String(secretId))) throw new RpcError(status.INVALID_ARGUMENT, 'invalid secret id');
      if (!replication) throw new RpcError(status.INVALID_ARGUMENT, 'replication is required');
      const badLabel = Object.entries(labels).some(
        ([key, value]) => !LABEL_KEY.test(key) || !LABEL_VALUE.test(value),
      );
      const badAnnotation = Object.keys(annotations).some((key) => !ANNOTATION_KEY.test(key));
      if (badLabel || badAnnotation)
        throw new RpcError(status.INVALID_ARGUMENT, 'invalid label or annotation');
      const name = `${String(parent)}/secrets/${String(secretId)}`;
      if (secrets.has(name)) throw new RpcError(status.ALREADY_EXISTS, `Secret [${name}] already exists.`);
      secrets.set(name, { replication, labels, annotations, versions: [] });
      return { name, labels, annotations, createTime: timestamp() };
    },

    AddSecretVersion: ({ parent, payload }) => {
      const secret = findSecret(parent);
      const data = (payload as { data: Buffer }).data;
      if (data.length > PAYLOAD_LIMIT) throw new RpcError(status.INVALID_ARGUMENT, 'payload is too large');
      const number = (secret.versions.at(-1)?.number ?? 0) + 1;
      const version: StoredVersion = { number, state: 'ENABLED', payload: data.toString('utf8') };
      secret.versions.push(version);
      return versionResource(String(parent), version);
    },

    AccessSecretVersion: ({ name }) => {
      const version = findVersion(name);
      if (version.state !== 'ENABLED' || version.payload === undefined) {
        throw new RpcError(
          status.FAILED_PRECONDITION,
          `Secret Version [${String(name)}] is in ${version.state} state.`,
        );
      }
      const resolved = String(name).replace(/\/versions\/latest$/, `/versions/${version.number}`);
      return { name: resolved, payload: { data: Buffer.from(version.payload, 'utf8') } };
    },

    ListSecretVersions: ({ parent, pageSize, pageToken, filter }) => {
      const states = parseStateFilter(String(filter));
      const matching = [...findSecret(parent).versions]
        .reverse()
        .filter((version) => states === undefined || states.includes(version.state));
      const start = Number(pageToken || 0);
      const size = Number(pageSize) || PAGE_SIZE;
      return {
        versions: matching
          .slice(start, start + size)
          .map((version) => versionResource(String(parent), version)),
        nextPageToken: start + size < matching.length ? String(start + size) : '',
        totalSize: matching.length,
      };
    },

    DestroySecretVersion: ({ name }) => {
      const version = findVersion(name);
      if (version.state === 'DESTROYED') throw new RpcError(status.FAILED_PRECONDITION, 'already destroyed');
      version.state = 'DESTROYED';
      version.payload = undefined;
      return versionResource(String(name).replace(/\/versions\/\d+$/, ''), version);
    },

    DeleteSecret: ({ name }) => {
      findSecret(name);
      secrets.delete(String(name));
      return {};
    },
  };
}
