// s3rver ships no type declarations; this is the part the shared-backend harness uses.
declare module 's3rver' {
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    configureBuckets?: { name: string }[];
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
    /** S3's event notification, sent for each object created or removed (Koa's emitter). */
    on(name: 'event', listener: (event: S3Event) => void): this;
  }
  interface S3Event {
    Records: { eventName: string; s3: { object: { key: string; size?: number } } }[];
  }
}
