// Schemas of the log stream (docs/api.md).
import { Type, type Static } from '@sinclair/typebox';
import { LEVELS, type LogLevel } from './bus.ts';

export const LogStreamQuery = Type.Object(
  {
    plugin: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only entries of this plugin' })),
    level: Type.Optional(Type.Unsafe<LogLevel>({ type: 'string', enum: [...LEVELS], description: 'Minimum level' })),
    since: Type.Optional(Type.String({ maxLength: 64, description: 'Replay recent entries first: a duration (30s, 5m, 1h, 2d) or an ISO 8601 timestamp' })),
  },
  { additionalProperties: false },
);

export type LogStreamOptions = Static<typeof LogStreamQuery>;

export const LogRecentQuery = Type.Object(
  {
    plugin: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only entries of this plugin' })),
    level: Type.Optional(Type.Unsafe<LogLevel>({ type: 'string', enum: [...LEVELS], description: 'Minimum level' })),
    since: Type.Optional(Type.String({ maxLength: 64, description: 'Only entries from this point: a duration (30s, 5m, 1h, 2d) or an ISO 8601 timestamp' })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'The most recent entries to answer, 1 to 1000 (default 100)' })),
  },
  { additionalProperties: false },
);

export type LogRecentOptions = Static<typeof LogRecentQuery>;

export const LogRecentPage = Type.Object({
  results: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Log entries, oldest first, as the stream sends them' }),
});
