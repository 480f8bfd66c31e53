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
