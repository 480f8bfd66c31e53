// charta-server subcommands: start (default), migrate, create-api-key, create-client,
// list-credentials, revoke-api-key, revoke-client, seed-demo, import-terminology, rotate-secret-key,
// backup, restore.
import fs from 'node:fs';
import os from 'node:os';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, redactUrl, storageOptionsOf, type Config } from './config.ts';
import { engineOf, openStorage } from './storage/db.ts';
import { BackupError, backupSqlite, restoreSqlite } from './storage/sqlite-backup.ts';
import { migrate } from './storage/migrations/index.ts';
import { createApiKey } from './auth/create-api-key.ts';
import { createClient } from './auth/create-client.ts';
import { expiryOf, listApiKeysOperation, listClientsOperation, operatorCtx, revokeApiKeyOperation, revokeClientOperation } from './auth/credentials.ts';
import { isoMicros, nowMicros } from './lib/time.ts';
import { seedDemo } from './demo/seed.ts';
import { startServer } from './server.ts';
import { stopOnSignals } from './shutdown.ts';
import { isWorker, runPrimary, runWorker } from './workers.ts';
import { VERSION } from './app.ts';
import { importTerminology } from './terminology/import.ts';
import { TERMINOLOGY_FORMATS } from './terminology/formats/index.ts';
import { TERMINOLOGIES, type TerminologyName } from './terminology/systems.ts';
import { rotateSecretKey } from './secret-key.ts';
import { SecretKeyError } from './lib/sealing.ts';

/** A bad argument: printed without a stack, exit 2. */
class UsageError extends Error {}

const program = new Command('charta-server').version(VERSION).description('The Charta instance').showHelpAfterError();

const withDatabase = (cmd: Command) =>
  cmd.option('--database-url <url>', 'sqlite:<path> or postgres://… (CHARTA_DATABASE_URL)').option('--data-dir <dir>', 'embedded files (CHARTA_DATA_DIR)');

withDatabase(program.command('start', { isDefault: true }).description('migrate, then serve the API'))
  .option('--host <host>', 'listen address (CHARTA_HOST)')
  .option('--port <port>', 'listen port (CHARTA_PORT)')
  .option('--public-url <url>', 'base of absolute links (CHARTA_PUBLIC_URL)')
  .option('--log-level <level>', 'server log level (CHARTA_LOG_LEVEL)')
  .option('--workers <n>', 'HTTP processes sharing the port, PostgreSQL only (CHARTA_WORKERS)')
  .action(async (opts: Record<string, string>) => {
    const cfg = config(opts);
    // docs/configuration.md, "Multi-process serving": a primary that forks the workers, or one of them.
    if (isWorker()) return runWorker(cfg);
    if (cfg.workers > 1) return runPrimary(cfg);
    stopOnSignals(await startServer(cfg), cfg);
  });

withDatabase(program.command('migrate').description('bring the database schema up to date')).action(async (opts: Record<string, string>) => {
  const cfg = config(opts);
  await withStorage(cfg, async (storage) => {
    const applied = await migrate(storage);
    console.log(applied.length ? `Applied: ${applied.join(', ')}` : `Up to date (${redactUrl(cfg.databaseUrl)})`);
  });
});

withDatabase(program.command('create-api-key').description('create an admin API key and print it once'))
  .option('--label <label>', 'what the key is for', 'cli')
  .option('--expires-in <duration>', 'stops working after this long: 90d, 12h, 30m')
  .option('--expires-at <iso>', 'stops working at this time (ISO 8601 with zone)')
  .action(async (opts: Record<string, string>) => {
    const expiresAt = expiryOption(opts);
    await withStorage(config(opts), async (storage) => {
      await migrate(storage);
      const { id, key } = await createApiKey(storage, opts.label!, { expiresAt });
      console.log(JSON.stringify({ id, api_key: key, expires_at: expiresAt === undefined ? null : isoMicros(expiresAt) }));
    });
  });

withDatabase(program.command('create-client').description('create an OAuth client (client credentials) and print its secret once'))
  .option('--name <name>', 'what the client is for', 'cli')
  .option('--client-id <id>', 'choose the client id')
  .option('--expires-in <duration>', 'stops working after this long: 90d, 12h, 30m')
  .option('--expires-at <iso>', 'stops working at this time (ISO 8601 with zone)')
  .action(async (opts: Record<string, string>) => {
    const expiresAt = expiryOption(opts);
    await withStorage(config(opts), async (storage) => {
      await migrate(storage);
      const client = await createClient(storage, { name: opts.name!, clientId: opts.clientId, expiresAt });
      console.log(
        JSON.stringify({
          client_id: client.clientId,
          client_secret: client.clientSecret,
          staff_key: client.staffKey,
          expires_at: expiresAt === undefined ? null : isoMicros(expiresAt),
        }),
      );
    });
  });

// docs/operations.md, "Credentials": list, and revoke (audited as the operator, `operator:cli`).
withDatabase(program.command('list-credentials').description('list the API keys and OAuth clients (never their secrets)')).action(
  async (opts: Record<string, string>) => {
    await withStorage(config(opts), async (storage) => {
      await migrate(storage);
      const ctx = operatorCtx(storage);
      const [keys, clients] = [await listApiKeysOperation(ctx), await listClientsOperation(ctx)];
      console.log(JSON.stringify({ api_keys: keys.results, oauth_clients: clients.results }, null, 2));
    });
  },
);

withDatabase(program.command('revoke-api-key').description('revoke an API key (by its id, from list-credentials)'))
  .argument('<id>', 'the API key id')
  .action(async (id: string, opts: Record<string, string>) => {
    await withStorage(config(opts), async (storage) => {
      await migrate(storage);
      console.log(JSON.stringify(await revokeApiKeyOperation(operatorCtx(storage), id)));
    });
  });

withDatabase(program.command('revoke-client').description('revoke an OAuth client and every token it was issued'))
  .argument('<client_id>', 'the client id')
  .action(async (clientId: string, opts: Record<string, string>) => {
    await withStorage(config(opts), async (storage) => {
      await migrate(storage);
      console.log(JSON.stringify(await revokeClientOperation(operatorCtx(storage), clientId)));
    });
  });

/** --expires-in DURATION or --expires-at ISO (not both) → microseconds, in the future. */
function expiryOption(opts: Record<string, string | undefined>): number | undefined {
  if (opts.expiresIn !== undefined && opts.expiresAt !== undefined) throw new UsageError('give --expires-in or --expires-at, not both');
  const now = nowMicros();
  if (opts.expiresIn !== undefined) {
    const m = /^(\d{1,6})([smhd])$/.exec(opts.expiresIn);
    if (!m || Number(m[1]) === 0) throw new UsageError(`--expires-in must be a duration like 90d, 12h, 30m or 45s (got ${JSON.stringify(opts.expiresIn)})`);
    return now + Number(m[1]) * ({ s: 1e6, m: 60e6, h: 3600e6, d: 86_400e6 } as const)[m[2] as 's' | 'm' | 'h' | 'd'];
  }
  if (opts.expiresAt === undefined) return undefined;
  try {
    return expiryOf(opts.expiresAt, '--expires-at', now);
  } catch (err) {
    const e = err as { errors?: Array<{ message: string }> };
    throw new UsageError(`--expires-at ${e.errors?.[0]?.message ?? 'is not valid'} (got ${JSON.stringify(opts.expiresAt)})`);
  }
}

withDatabase(program.command('seed-demo').description('add a demo patient and notes')).action(async (opts: Record<string, string>) => {
  await withStorage(config(opts), async (storage) => {
    await migrate(storage);
    console.log(JSON.stringify(await seedDemo(storage)));
  });
});

withDatabase(
  program
    .command('rotate-secret-key')
    .description('seal every plugin secret again under a new key (stop every process of the instance first)')
    .option('--new-key-file <path>', 'the new key (made there, mode 0600, if the file does not exist); without it, a new key replaces <data dir>/secret.key')
    .addHelpText('after', '\nSee docs/operations.md, "Sealed secrets".'),
).action(async (opts: Record<string, string>) => {
  const cfg = config(opts);
  await withStorage(cfg, async (storage) => {
    await migrate(storage);
    for (const line of await rotateSecretKey(storage, cfg, opts.newKeyFile)) console.log(line);
  });
});

const systemNames = Object.keys(TERMINOLOGIES) as TerminologyName[];
withDatabase(
  program
    .command('import-terminology')
    .description('load an official terminology release file (again: it updates what changed)')
    .requiredOption('--system <name>', `one of ${systemNames.join(', ')}`)
    .requiredOption('--file <path>', 'the release file (see docs/terminology-formats.md)')
    .option('--concepts <path>', 'snomed only: the RF2 concept snapshot (sct2_Concept_Snapshot…), so inactive concepts are stored inactive')
    .addHelpText('after', `\nFiles by system:\n${systemNames.map((n) => `  ${n.padEnd(8)} ${TERMINOLOGY_FORMATS[n].file}`).join('\n')}`),
).action(async (opts: Record<string, string>) => {
  const name = opts.system as TerminologyName;
  if (!systemNames.includes(name)) throw new UsageError(`--system must be one of ${systemNames.join(', ')} (got ${JSON.stringify(opts.system)})`);
  for (const flag of ['file', 'concepts'] as const) {
    if (opts[flag] !== undefined && !fs.statSync(opts[flag], { throwIfNoEntry: false })?.isFile())
      throw new UsageError(`--${flag}: no such file: ${opts[flag]}`);
  }
  if (opts.concepts !== undefined && name !== 'snomed') throw new UsageError('--concepts is for --system snomed only');
  await withStorage(config(opts), async (storage) => {
    await migrate(storage);
    // A running count on a terminal only; scripts get the summary line alone.
    const tty = process.stderr.isTTY === true;
    const label = TERMINOLOGIES[name].label;
    const summary = await importTerminology(storage, name, opts.file!, {
      concepts: opts.concepts,
      progress: (stored, read) => {
        if (tty) process.stderr.write(`\r${label}: ${stored.toLocaleString('en-US')} concepts stored (${read.toLocaleString('en-US')} lines read)`);
      },
    });
    if (tty) process.stderr.write('\n');
    console.log(JSON.stringify(summary));
  });
});

// docs/operations.md, "Backup and restore": SQLite's online backup of a serving instance, from a
// connection of this process on the same file (storage/sqlite-backup.ts says why it is consistent);
// on PostgreSQL, pg_dump and pg_restore.
withDatabase(program.command('backup').description('copy a serving SQLite instance into a new file (online, consistent)'))
  .requiredOption('--to <file>', 'the new backup file (never replaced; mode 0600)')
  .action(async (opts: Record<string, string>) => {
    const file = sqliteFileOf(config(opts), 'backup', 'pg_dump');
    // Background work: at the lowest CPU priority (nice 19) the instance's requests come first
    // when the cores are busy, and the copy runs at full speed when they are not (docs/performance.md, "Backup").
    try {
      os.setPriority(os.constants.priority.PRIORITY_LOW);
    } catch {
      // not permitted here: the backup runs at the priority it was started with
    }
    const tty = process.stderr.isTTY === true;
    const aborter = new AbortController();
    const stop = () => aborter.abort();
    process.once('SIGINT', stop).once('SIGTERM', stop);
    try {
      const result = await backupSqlite(file, opts.to!, {
        signal: aborter.signal,
        progress: (copied, total) => {
          if (tty) process.stderr.write(`\rbackup: ${total === 0 ? 100 : Math.floor((copied / total) * 100)} % of ${total.toLocaleString('en-US')} pages`);
        },
      });
      if (tty) process.stderr.write('\n');
      console.log(JSON.stringify(result));
    } catch (err) {
      if (tty) process.stderr.write('\n');
      // The instance is another process on its own connection: a failed backup never touched it.
      if (err instanceof BackupError) throw new BackupError(`backup failed: ${err.message}. The instance was not affected (a backup only reads its database)`);
      throw err;
    } finally {
      process.off('SIGINT', stop).off('SIGTERM', stop);
    }
  });

withDatabase(program.command('restore').description('restore a backup into an empty data directory (SQLite)'))
  .requiredOption('--from <file>', 'a file written by charta-server backup (or a Charta SQLite database file)')
  .action(async (opts: Record<string, string>) => {
    const file = sqliteFileOf(config(opts), 'restore', 'pg_restore');
    if (!fs.statSync(opts.from!, { throwIfNoEntry: false })?.isFile()) throw new UsageError(`--from: no such file: ${opts.from}`);
    try {
      console.log(JSON.stringify(await restoreSqlite(opts.from!, file)));
    } catch (err) {
      if (err instanceof BackupError) throw new BackupError(`restore refused: ${err.message}`);
      throw err;
    }
  });

/** The SQLite file `cfg` names; on PostgreSQL a UsageError pointing at the PostgreSQL tool (docs/operations.md). */
function sqliteFileOf(cfg: Config, command: string, tool: string): string {
  if (engineOf(cfg.databaseUrl) !== 'sqlite') {
    throw new UsageError(`${command} is for SQLite instances; on PostgreSQL use ${tool} (docs/operations.md, "Backup and restore")`);
  }
  const file = cfg.databaseUrl.slice('sqlite:'.length);
  if (file === ':memory:' || file === '') throw new UsageError(`${command}: the database is in memory (${cfg.databaseUrl}); there is no file`);
  return file;
}

function config(opts: Record<string, string | undefined>): Config {
  return loadConfig(process.env, opts);
}

async function withStorage(cfg: Config, work: (storage: ReturnType<typeof openStorage>) => Promise<void>) {
  const storage = openStorage(cfg.databaseUrl, storageOptionsOf(cfg));
  try {
    await work(storage);
  } finally {
    await storage.close();
  }
}

program.exitOverride();
try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  // A wrong or missing secret key is a setting to correct (docs/operations.md, "Sealed secrets"); its message names no key.
  if (err instanceof ConfigError || err instanceof UsageError || err instanceof SecretKeyError) {
    console.error(`charta-server: ${err.message}`);
    process.exit(2);
  }
  const e = err as NodeJS.ErrnoException;
  console.error(`charta-server: ${e.code === 'EADDRINUSE' ? `address in use (${e.message})` : e.message}`);
  process.exit(1);
}
