// Entry point of the `charta` binary (bin/charta.js loads this through tsx).
import { processIO } from './io.ts';
import { runCli } from './program.ts';

process.exitCode = await runCli(process.argv, processIO());
