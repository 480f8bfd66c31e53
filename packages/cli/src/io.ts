// What a command may touch, injected so tests can drive a command without a terminal:
// the output streams, stdin and whether it is a terminal, the environment, and the prompts.
import type { LineWriter } from './output.ts';

export interface Prompter {
  input(options: { message: string; default?: string; validate?: (value: string) => true | string }): Promise<string>;
  password(options: { message: string; validate?: (value: string) => true | string }): Promise<string>;
  confirm(options: { message: string; default?: boolean }): Promise<boolean>;
}

export interface IO {
  stdout: LineWriter;
  stderr: LineWriter;
  stdin: NodeJS.ReadableStream;
  /** Prompts are allowed only when stdin is a terminal. */
  isTTY: boolean;
  env: Record<string, string | undefined>;
  prompt: Prompter;
}

/** Thrown by a prompter when the user cancels (Ctrl-C). */
export class PromptCancelled extends Error {}

/**
 * The real process. Prompts are drawn on stderr so stdout stays pure JSON lines even when it is
 * piped; @inquirer/prompts is loaded only when a prompt is actually shown.
 */
export function processIO(): IO {
  const context = { input: process.stdin, output: process.stderr };
  const cancelled = (err: unknown): never => {
    const name = (err as Error | undefined)?.name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new PromptCancelled('Aborted');
    throw err;
  };
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    isTTY: process.stdin.isTTY === true,
    env: process.env,
    prompt: {
      async input(options) {
        const { input } = await import('@inquirer/prompts');
        return input(options, context).catch(cancelled);
      },
      async password(options) {
        const { password } = await import('@inquirer/prompts');
        return password({ ...options, mask: '*' }, context).catch(cancelled);
      },
      async confirm(options) {
        const { confirm } = await import('@inquirer/prompts');
        return confirm(options, context).catch(cancelled);
      },
    },
  };
}
