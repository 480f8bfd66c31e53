// Each request's logger (`request.log`), made only when the request logs something
// (docs/performance.md, "Speed, second pass"): pino's child() serializes the request id into its
// bindings when it is made, which cost a GET about 3 % of its CPU (createChildLogger, asChindings
// and redaction in the profile), though almost no request logs anything (request logging is off
// below debug). A call at a level that is off never makes the child.
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = NonNullable<Parameters<FastifyBaseLogger['child']>[1]>;
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** What the app's logger is (pino, app.ts), beyond Fastify's base type. */
type Pino = FastifyBaseLogger & { isLevelEnabled(level: string): boolean; levels: { values: Record<string, number> } };

/** A request's logger until it logs: the child is made at the first enabled call (one object, no closures, per request). */
class LazyLogger {
  private made: Pino | undefined;
  constructor(
    private readonly logger: Pino,
    private readonly bindings: Bindings,
    private readonly opts: ChildOptions,
  ) {}
  private real(): Pino {
    return (this.made ??= this.logger.child(this.bindings, this.opts) as Pino);
  }
  /** A route's own logLevel (opts.level) decides for its requests; otherwise the server's level. */
  private enabled(level: Level): boolean {
    if (this.made !== undefined) return this.made.isLevelEnabled(level);
    const own = this.opts.level;
    if (own === undefined) return this.logger.isLevelEnabled(level);
    const values = this.logger.levels.values;
    return own !== 'silent' && values[level]! >= values[own]!;
  }
  get level(): string {
    return this.made?.level ?? this.opts.level ?? this.logger.level;
  }
  set level(value: string) {
    this.real().level = value;
  }
  fatal(...args: unknown[]): void {
    if (this.enabled('fatal')) (this.real().fatal as (...a: unknown[]) => void)(...args);
  }
  error(...args: unknown[]): void {
    if (this.enabled('error')) (this.real().error as (...a: unknown[]) => void)(...args);
  }
  warn(...args: unknown[]): void {
    if (this.enabled('warn')) (this.real().warn as (...a: unknown[]) => void)(...args);
  }
  info(...args: unknown[]): void {
    if (this.enabled('info')) (this.real().info as (...a: unknown[]) => void)(...args);
  }
  debug(...args: unknown[]): void {
    if (this.enabled('debug')) (this.real().debug as (...a: unknown[]) => void)(...args);
  }
  trace(...args: unknown[]): void {
    if (this.enabled('trace')) (this.real().trace as (...a: unknown[]) => void)(...args);
  }
  silent(): void {}
  child(bindings: Bindings, opts?: ChildOptions): FastifyBaseLogger {
    return this.real().child(bindings, opts);
  }
}

/** Fastify's childLoggerFactory: the child of `logger` with `bindings`, made at its first enabled log call. */
export function lazyRequestLogger(this: FastifyInstance, base: FastifyBaseLogger, bindings: Bindings, opts: ChildOptions): FastifyBaseLogger {
  const logger = base as Pino;
  if (typeof logger.isLevelEnabled !== 'function') return base.child(bindings, opts);
  return new LazyLogger(logger, bindings, opts) as unknown as FastifyBaseLogger;
}
