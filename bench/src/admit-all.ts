// The bench offers its own load to measure the engines and the stores, not the server's back-pressure
// (issue #18), which has a scenario of its own (scenarios/back-pressure.ts): the servers that take its
// concurrent synchronous calls admit them all instead of answering 503 server_busy past their slots.
export const ADMIT_ALL = { PDN_MAX_QUEUE: '1000' } as const;
