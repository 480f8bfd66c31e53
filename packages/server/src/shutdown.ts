// Graceful shutdown of a serving process (docs/configuration.md, "Stopping"): on SIGTERM or
// SIGINT, exit 0 once everything in flight has finished, 1 if CHARTA_SHUTDOWN_TIMEOUT had to cut
// requests off. A second signal is ignored. The single process of `start` and each worker of
// `start --workers N` (workers.ts) stop this way.
import type { Config } from './config.ts';
import type { Running } from './server.ts';

export function stopOnSignals(running: Running, config: Config): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    running.app.log.info({ signal, timeoutMs: config.shutdownTimeoutMs }, 'shutting down');
    running.close().then(
      ({ complete }) => {
        if (!complete) console.error(`charta-server: requests still running after ${config.shutdownTimeoutMs} ms were cut off`);
        process.exit(complete ? 0 : 1);
      },
      (err: unknown) => {
        console.error(`charta-server: shutdown failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
