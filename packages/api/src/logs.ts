// The log stream's entries and options (docs/api.md, "Log stream").
import { Type, type Static } from '@sinclair/typebox';
import { LOG_LEVELS as LEVELS, type LogLevel } from './constants.ts';

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
    limit: Type.Optional(Type.Integer({ description: 'The most recent entries to answer, 1 to 1000 (default 100)' })),
  },
  { additionalProperties: false },
);

export type LogRecentOptions = Static<typeof LogRecentQuery>;

export const LogRecentPage = Type.Object({
  results: Type.Array(Type.Object({}, { additionalProperties: true }), { description: 'Log entries, oldest first, as the stream sends them' }),
});

export type LogSource = 'server' | 'plugin';

/** One entry of the log stream, as every consumer gets it. */
export interface LogEntry {
  /** One line of text. */
  event: string;
  level: LogLevel;
  /** ISO 8601 with microseconds, UTC. */
  timestamp: string;
  source: LogSource;
  plugin?: string;
  request_id?: string;
  /** The plugin handler a line is about (`<entry>:<export>`). */
  handler?: string;
  /** The event the handler was given, e.g. `PLAN_COMMAND__POST_COMMIT`. */
  event_type?: string;
  /** false on every line that reports a failure of a plugin (docs/plugins.md, "Faults"); absent elsewhere. */
  success?: boolean;
  /** On a failure line: what failed (`timeout`, `out-of-memory`, `threw`…, `effect`, `load`; docs/plugins.md, "Faults"). */
  fault?: string;
  /** On the lines of a scheduled handler's run: the tick it runs, ISO 8601 UTC (docs/plugins.md, "Scheduled tasks"). */
  tick?: string;
}

/** The optional members of an entry, in the order a line shows them. */
export const OPTIONAL_MEMBERS = ['plugin', 'request_id', 'handler', 'event_type', 'success', 'fault', 'tick'] as const;
