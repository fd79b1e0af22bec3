import type { Answer, DecodedPacket } from 'dns-packet';

/** One answer record as a run reports it and assertions read it: `data` in zone-file presentation. */
export interface DnsAnswer {
  name: string;
  type: string;
  ttl: number;
  data: string;
}

/** What a DNS_QUERY step recorded: the answer's code and records. */
export interface DnsResult {
  /** e.g. `NOERROR`, `NXDOMAIN`, `SERVFAIL`. */
  rcode: string;
  authoritative: boolean;
  answers: DnsAnswer[];
}

/** Records a run keeps of one answer: a zone transfer-sized reply is a mistake, not a check. */
const MAX_ANSWERS = 100;
const MAX_DATA_CHARS = 1024;

const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString('utf8') : String(value));

/** `data` as a zone file writes it, for the types a monitor can ask for; others as their JSON. */
function presentation(answer: Answer): string {
  const data = (answer as { data?: unknown }).data;
  switch (answer.type) {
    case 'MX': {
      const mx = data as { preference?: number; exchange: string };
      return `${mx.preference ?? 0} ${mx.exchange}`;
    }
    case 'SRV': {
      const srv = data as { priority?: number; weight?: number; port?: number; target: string };
      return `${srv.priority ?? 0} ${srv.weight ?? 0} ${srv.port ?? 0} ${srv.target}`;
    }
    case 'SOA': {
      const soa = data as Record<string, unknown>;
      return ['mname', 'rname', 'serial', 'refresh', 'retry', 'expire', 'minimum']
        .map((field) => String(soa[field]))
        .join(' ');
    }
    case 'TXT':
      return (Array.isArray(data) ? data : [data]).map(text).join('');
    case 'CAA': {
      const caa = data as { flags?: number; tag: string; value: string };
      return `${caa.flags ?? 0} ${caa.tag} "${caa.value}"`;
    }
    default:
      return typeof data === 'string' ? data : JSON.stringify(data);
  }
}

export function dnsResultOf(packet: DecodedPacket): DnsResult {
  return {
    rcode: (packet as { rcode?: string }).rcode ?? 'UNKNOWN',
    authoritative: packet.flag_aa,
    answers: (packet.answers ?? []).slice(0, MAX_ANSWERS).map((answer) => ({
      name: answer.name,
      type: answer.type,
      ttl: (answer as { ttl?: number }).ttl ?? 0,
      data: presentation(answer).slice(0, MAX_DATA_CHARS),
    })),
  };
}
