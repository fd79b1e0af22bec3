// An in-memory Google Secret Manager speaking real gRPC, built from the .proto files the client library ships.
// It serves the methods in fake-secret-manager-methods.ts, records every call, and can be told to fail the next
// calls of a method with a given status.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SecretManagerServiceClient } from '@google-cloud/secret-manager';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import {
  RpcError,
  secretManagerMethods,
  type Method,
  type StoredSecret,
} from './fake-secret-manager-methods.js';

export interface RecordedCall {
  method: string;
  request: Record<string, unknown>;
}

/** The service definition from the client's own protos (and google-gax's, for the google.api/iam imports). */
function loadServiceDefinition(): grpc.ServiceDefinition {
  const require = createRequire(import.meta.url);
  const clientMain = require.resolve('@google-cloud/secret-manager');
  const gaxMain = createRequire(clientMain).resolve('google-gax');
  const definition = protoLoader.loadSync('google/cloud/secretmanager/v1/service.proto', {
    includeDirs: [join(dirname(clientMain), '../protos'), join(dirname(gaxMain), '../protos')],
    keepCase: false,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as {
    google: {
      cloud: { secretmanager: { v1: { SecretManagerService: { service: grpc.ServiceDefinition } } } };
    };
  };
  return loaded.google.cloud.secretmanager.v1.SecretManagerService.service;
}

export class FakeSecretManager {
  readonly calls: RecordedCall[] = [];
  private readonly secrets = new Map<string, StoredSecret>();
  private readonly failures = new Map<string, grpc.status[]>();
  private readonly server = new grpc.Server();
  private port = 0;

  private constructor(readonly project: string) {}

  static async start(project = 'meerkat-test'): Promise<FakeSecretManager> {
    const fake = new FakeSecretManager(project);
    const methods = secretManagerMethods({ project, secrets: fake.secrets });
    const service = loadServiceDefinition();
    const implementation: grpc.UntypedServiceImplementation = {};
    for (const name of Object.keys(service)) {
      const unary: grpc.handleUnaryCall<Record<string, unknown>, unknown> = (call, done) =>
        fake.answer(name, call.request, methods[name], done);
      implementation[name] = unary;
    }
    fake.server.addService(service, implementation);
    fake.port = await new Promise<number>((resolve, reject) =>
      fake.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) =>
        error ? reject(error) : resolve(port),
      ),
    );
    return fake;
  }

  /** The real client library, pointed at this server without TLS or Google credentials. */
  client(): SecretManagerServiceClient {
    return new SecretManagerServiceClient({
      apiEndpoint: '127.0.0.1',
      port: this.port,
      sslCreds: grpc.credentials.createInsecure(),
      // Given, so the client never asks Application Default Credentials (or a metadata server) for it.
      universeDomain: 'googleapis.com',
    });
  }

  /** The next `times` calls of `method` (e.g. 'AddSecretVersion') fail with `code` before reaching the state. */
  failNext(method: string, code: grpc.status, times = 1): void {
    const queued = this.failures.get(method) ?? [];
    this.failures.set(method, [...queued, ...Array<grpc.status>(times).fill(code)]);
  }

  callsOf(method: string): RecordedCall[] {
    return this.calls.filter((call) => call.method === method);
  }

  secret(secretId: string): StoredSecret | undefined {
    return this.secrets.get(`projects/${this.project}/secrets/${secretId}`);
  }

  /** The newest version's payload, parsed as the JSON map it must be; undefined without a readable one. */
  latestMap(secretId: string): Record<string, string> | undefined {
    const payload = this.secret(secretId)?.versions.at(-1)?.payload;
    return payload === undefined ? undefined : (JSON.parse(payload) as Record<string, string>);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server.tryShutdown(() => resolve()));
  }

  private answer(
    name: string,
    request: Record<string, unknown>,
    method: Method | undefined,
    done: grpc.sendUnaryData<unknown>,
  ): void {
    this.calls.push({ method: name, request });
    const failure = this.failures.get(name)?.shift();
    if (failure !== undefined) return done({ code: failure, details: `injected ${grpc.status[failure]}` });
    if (method === undefined)
      return done({ code: grpc.status.UNIMPLEMENTED, details: `${name} is not faked` });
    try {
      done(null, method(request));
    } catch (error) {
      if (!(error instanceof RpcError)) throw error;
      done({ code: error.code, details: error.message });
    }
  }
}
