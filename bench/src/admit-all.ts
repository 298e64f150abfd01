// The bench offers its own load to measure the engines and the stores, not the server's admission,
// which has a scenario of its own (scenarios/sharing.ts): the servers that take its concurrent
// synchronous calls let each wait in the queue as long as the setting allows (PDN_MAX_SYNC_WAIT, in
// seconds) instead of answering 503 server_busy when the expected wait passes the default 20 s.
export const ADMIT_ALL = { PDN_MAX_SYNC_WAIT: '600' } as const;
