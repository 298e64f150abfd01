// PostgreSQL round trips, counted on the wire ("per request, Redis and PostgreSQL round
// trips"): every exchange a client waits on, a simple query, an extended-protocol Sync, a connection's
// start-up, ends with exactly one ReadyForQuery ('Z') from the server, so counting those counts round
// trips, whatever a transaction holds. Read from the bytes the server sends each connection, framed as
// the protocol says (a type byte, then a 4-byte length counting itself): PostgreSQL docs, "Message Flow".
const READY_FOR_QUERY = 'Z'.charCodeAt(0);

export interface RoundTrips {
  /** A listener for one connection's bytes from the server (TcpProxy.tapReplies). */
  listenerOf(): (chunk: Buffer) => void;
  /** Round trips counted so far, every connection together. */
  count(): number;
}

export function postgresRoundTrips(): RoundTrips {
  let count = 0;
  return {
    listenerOf() {
      let pending: Buffer = Buffer.alloc(0);
      return (chunk) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        let at = 0;
        while (pending.length - at >= 5) {
          const end = at + 1 + pending.readUInt32BE(at + 1);
          if (end > pending.length) break;
          if (pending[at] === READY_FOR_QUERY) count += 1;
          at = end;
        }
        pending = pending.subarray(at);
      };
    },
    count: () => count,
  };
}
