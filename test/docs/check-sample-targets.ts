// Real servers on loopback that answer what the samples in config/samples/checks/ ask: an HTTPS server whose
// certificate a test CA signed, an SMTP-like greeter, a DNS server (dns2) and a gRPC server with the official
// health service. Each counts what it was asked, so a sample that passed is known to have reached it.
import { createServer as createTcpServer, type Server as TcpServer } from 'node:net';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { Server as GrpcServer, ServerCredentials } from '@grpc/grpc-js';
import dns2 from 'dns2';
import { HealthImplementation } from 'grpc-health-check';
import { freePort } from '../harness/processes.js';
import { createTestAuthority, daysFromNow, type TestAuthority } from '../runner/test-certificates.js';

export interface CheckTargets {
  /** The CA that signed the HTTPS server's certificate, as a PEM file a runner may trust (NODE_EXTRA_CA_CERTS). */
  caCertificate: string;
  https: { port: number; requests: string[] };
  tcp: { port: number; connections: number };
  dns: { port: number; questions: string[] };
  grpc: { port: number };
  close(): Promise<void>;
}

const listening = (server: TcpServer | HttpsServer) =>
  new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : 0);
    }),
  );

const closing = (server: TcpServer | HttpsServer) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
  });

async function startDns(questions: string[]) {
  const { Packet } = dns2;
  const port = await freePort();
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      questions.push(`${question?.name}/${question?.type}`);
      if (question?.name === 'example.com' && question.type === Packet.TYPE.A)
        response.answers.push({
          name: question.name,
          type: Packet.TYPE.A,
          class: Packet.CLASS.IN,
          ttl: 300,
          address: '192.0.2.80',
        } as never);
      else response.header.rcode = 3; // NXDOMAIN
      void send(response);
    },
  });
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  return { port, close: () => server.close() };
}

async function startGrpc() {
  const server = new GrpcServer();
  new HealthImplementation({ '': 'SERVING', 'shop.v1.Cart': 'SERVING' }).addToServer(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { port, close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())) };
}

export async function startCheckTargets(): Promise<CheckTargets> {
  const ca: TestAuthority = createTestAuthority();
  const leaf = ca.issue({
    commonName: '127.0.0.1',
    names: ['127.0.0.1'],
    notBefore: daysFromNow(-1),
    notAfter: daysFromNow(90),
  });
  const requests: string[] = [];
  const https = createHttpsServer({ ...leaf, minVersion: 'TLSv1.2' }, (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200).end();
  });
  const tcp = { port: 0, connections: 0 };
  const greeter = createTcpServer((socket) => {
    tcp.connections += 1;
    socket.end('220 mail.test ESMTP ready\r\n');
  });
  const questions: string[] = [];
  const [httpsPort, tcpPort, dns, grpc] = await Promise.all([
    listening(https),
    listening(greeter),
    startDns(questions),
    startGrpc(),
  ]);
  tcp.port = tcpPort;
  return {
    caCertificate: ca.certificate,
    https: { port: httpsPort, requests },
    tcp,
    dns: { port: dns.port, questions },
    grpc: { port: grpc.port },
    async close() {
      https.closeAllConnections();
      await Promise.all([closing(https), closing(greeter), dns.close(), grpc.close()]);
      ca.dispose();
    },
  };
}
