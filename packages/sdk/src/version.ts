// The SDK's version, sent in the User-Agent. A constant rather than a read of
// package.json: the SDK must load in browsers and bundlers without JSON imports.
// test/version.test.ts keeps it equal to package.json's.
export const VERSION = '1.0.0';
