// A small DNS server on loopback for the webhook tests: answers A and AAAA questions from a function of
// the name, or never answers at all (a DNS server that hangs). Just enough of RFC 1035 (section 4) for
// c-ares, so the tests resolve through the real Resolver, not a stand-in.
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const A = 1;
const AAAA = 28;

/** The addresses a name has now, or 'silent' to leave the question unanswered. */
export type Records = (name: string) => readonly string[] | 'silent';

function questionOf(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  for (let length = message[at] ?? 0; length > 0; length = message[at] ?? 0) {
    labels.push(message.subarray(at + 1, at + 1 + length).toString('ascii'));
    at += length + 1;
  }
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
}

function answer(query: Buffer, addresses: readonly string[]): Buffer {
  const { type, end } = questionOf(query);
  const wanted = addresses.filter((address) => isIP(address) === (type === AAAA ? 6 : type === A ? 4 : 0));
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  header.writeUInt16BE(0x8180, 2); // a response, recursion desired and available, no error
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(wanted.length, 6);
  const records = wanted.map((address) => {
    const data = Buffer.from(ipaddr.parse(address).toByteArray());
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // the name, as a pointer to the question's
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(0, 6);
    record.writeUInt16BE(data.length, 10);
    return Buffer.concat([record, data]);
  });
  return Buffer.concat([header, query.subarray(12, end), ...records]);
}

export class TestDnsServer {
  /** Questions received, as `name type`. */
  readonly questions: string[] = [];

  private constructor(
    private readonly socket: Socket,
    readonly address: string,
  ) {}

  static async start(records: Records): Promise<TestDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const server = new TestDnsServer(socket, `127.0.0.1:${socket.address().port}`);
    socket.on('message', (query, from) => {
      const { name, type } = questionOf(query);
      server.questions.push(`${name} ${type === AAAA ? 'AAAA' : type === A ? 'A' : type}`);
      const addresses = records(name);
      if (addresses === 'silent') return;
      socket.send(answer(query, addresses), from.port, from.address);
    });
    return server;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
