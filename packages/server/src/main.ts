// charta-server subcommands: start (default), migrate, create-api-key, create-client, seed-demo,
// import-terminology.
import fs from 'node:fs';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, redactUrl, type Config } from './config.ts';
import { openStorage } from './storage/db.ts';
import { migrate } from './storage/migrations/index.ts';
import { createApiKey } from './auth/create-api-key.ts';
import { createClient } from './auth/create-client.ts';
import { seedDemo } from './demo/seed.ts';
import { startServer } from './server.ts';
import { stopOnSignals } from './shutdown.ts';
import { isWorker, runPrimary, runWorker } from './workers.ts';
import { VERSION } from './app.ts';
import { importTerminology } from './terminology/import.ts';
import { TERMINOLOGY_FORMATS } from './terminology/formats/index.ts';
import { TERMINOLOGIES, type TerminologyName } from './terminology/systems.ts';

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
  .action(async (opts: Record<string, string>) => {
    await withStorage(config(opts), async (storage) => {
      await migrate(storage);
      const { key } = await createApiKey(storage, opts.label!);
      console.log(JSON.stringify({ api_key: key }));
    });
  });

withDatabase(program.command('create-client').description('create an OAuth client (client credentials) and print its secret once'))
  .option('--name <name>', 'what the client is for', 'cli')
  .option('--client-id <id>', 'choose the client id')
  .action(async (opts: Record<string, string>) => {
    await withStorage(config(opts), async (storage) => {
      await migrate(storage);
      const client = await createClient(storage, { name: opts.name!, clientId: opts.clientId });
      console.log(JSON.stringify({ client_id: client.clientId, client_secret: client.clientSecret, staff_key: client.staffKey }));
    });
  });

withDatabase(program.command('seed-demo').description('add a demo patient and notes')).action(async (opts: Record<string, string>) => {
  await withStorage(config(opts), async (storage) => {
    await migrate(storage);
    console.log(JSON.stringify(await seedDemo(storage)));
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

function config(opts: Record<string, string | undefined>): Config {
  return loadConfig(process.env, opts);
}

async function withStorage(cfg: Config, work: (storage: ReturnType<typeof openStorage>) => Promise<void>) {
  const storage = openStorage(cfg.databaseUrl, { synchronous: cfg.sqliteSynchronous });
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
  if (err instanceof ConfigError || err instanceof UsageError) {
    console.error(`charta-server: ${err.message}`);
    process.exit(2);
  }
  const e = err as NodeJS.ErrnoException;
  console.error(`charta-server: ${e.code === 'EADDRINUSE' ? `address in use (${e.message})` : e.message}`);
  process.exit(1);
}
