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

const SOA_FIELDS = ['mname', 'rname', 'serial', 'refresh', 'retry', 'expire', 'minimum'] as const;

/** `data` as a zone file writes it, for the types a monitor can ask for; others as their JSON. */
function presentation(answer: Answer): string {
  switch (answer.type) {
    case 'MX':
      return `${answer.data.preference ?? 0} ${answer.data.exchange}`;
    case 'SRV': {
      const srv = answer.data;
      return `${srv.priority ?? 0} ${srv.weight ?? 0} ${srv.port ?? 0} ${srv.target}`;
    }
    case 'SOA': {
      const soa = answer.data;
      return SOA_FIELDS.map((field) => String(soa[field])).join(' ');
    }
    case 'TXT':
      return (Array.isArray(answer.data) ? answer.data : [answer.data]).map(text).join('');
    case 'CAA':
      return `${answer.data.flags ?? 0} ${answer.data.tag} "${answer.data.value}"`;
    default: {
      // OPT pseudo-records carry no data.
      const data: unknown = 'data' in answer ? answer.data : undefined;
      return typeof data === 'string' ? data : JSON.stringify(data);
    }
  }
}

/** dns-packet decodes the response code, though its types leave it out. */
const rcodeOf = (packet: DecodedPacket): string =>
  'rcode' in packet && typeof packet.rcode === 'string' ? packet.rcode : 'UNKNOWN';

export function dnsResultOf(packet: DecodedPacket): DnsResult {
  return {
    rcode: rcodeOf(packet),
    authoritative: packet.flag_aa,
    answers: (packet.answers ?? []).slice(0, MAX_ANSWERS).map((answer) => ({
      name: answer.name,
      type: answer.type,
      ttl: ('ttl' in answer ? answer.ttl : undefined) ?? 0,
      data: presentation(answer).slice(0, MAX_DATA_CHARS),
    })),
  };
}
