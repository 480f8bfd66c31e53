// The public wire types of the API, for @charta/client (which declares @charta/server as a
// dependency and imports this module with `import type` only: nothing here runs in a client).
// Each feature defines its schemas in its own schemas.ts; this barrel only re-exports types.
export type { Paginated } from './http/schemas.ts';
export type { AutocompleteOption, Command, CreateCommandBody, Fields, PatchCommandBody } from './commands/schemas.ts';
export type { CreatePatient, Patient } from './patients/schemas.ts';
export type { CreateNote, Note } from './notes/schemas.ts';
export type { Token } from './auth/schemas.ts';
export type { Plugin, DeadLetter as PluginDeadLetter, SecretChange as PluginSecretChange, SecretListing as PluginSecretListing } from './plugins/schemas.ts';
export type { BannerAlert } from './chart/schemas.ts';
