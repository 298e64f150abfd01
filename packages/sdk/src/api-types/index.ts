// The contract's types, for the SDK's own modules: they import @pdn/api-types only through here.
// @pdn/api-types is never published, so the build (scripts/inline-api-types.js) puts its generated
// declarations in place of this file's in dist/: the packed SDK type-checks on its own,
// and @pdn/api-types stays the one source of these types.
export type * from '@pdn/api-types';
