// @charta/api: the wire contract of a Charta instance (docs/architecture.md, "The contract
// package"): the TypeBox schemas of everything the API takes and answers, their static types, and
// the constants they are built from. Nothing here runs: no operation, no I/O. The server
// validates and documents with these schemas; @charta/client, the console, the plugin SDK and
// the CLI use their types (and `@charta/api/constants`, which needs no schema library).
export * from './constants.ts';
export * from './common.ts';
export * from './commands.ts';
export * from './notes.ts';
export * from './patients.ts';
export * from './chart.ts';
export * from './plugins.ts';
export * from './logs.ts';
export * from './reference.ts';
export * from './audit.ts';
export * from './auth.ts';
export * from './data.ts';
export * from './health.ts';
