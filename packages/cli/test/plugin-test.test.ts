// charta plugin test and charta plugin run (docs/plugins.md, "Testing a plugin"), through the real
// binary: a scaffolded project's tests pass with every handler call made in the sandbox; a
// handler using setTimeout or require, which runs in plain Node, fails there as on the instance;
// `this.data` reads a fixture, and an out-of-scope read or a budget overrun fails the test as it
// fails a call on the instance (the same fault line); `plugin run --event` prints the log lines
// and the effects of the handlers the instance would call (from the bundle and through tsx); bad
// input is one usage or failure line with its exit code.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createEvent, originateCommand, recordingLogger, runHandler, type HandlerClass } from '@charta/plugin-sdk';
import { charta, single, tempDir, type Result } from './support/cli.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
const A = 'a'.repeat(32);
const B = 'b'.repeat(32);

/** A new project (charta plugin init) with what `npm install` would give it, linked from this checkout. */
async function newProject(name: string): Promise<string> {
  const out = tempDir('charta-plugin-test-');
  const dir = String(single(await charta(['plugin', 'init', '--no-input', '-o', out, '--project-name', name], {}), 0).project_dir);
  const modules = path.join(dir, 'node_modules');
  fs.mkdirSync(path.join(modules, '@charta'), { recursive: true });
  fs.mkdirSync(path.join(modules, '@types'), { recursive: true });
  for (const pkg of ['api', 'plugin-sdk']) fs.symlinkSync(path.join(REPO, 'packages', pkg), path.join(modules, '@charta', pkg));
  for (const pkg of ['tsx', 'typescript', '@types/node']) fs.symlinkSync(path.join(REPO, 'node_modules', pkg), path.join(modules, pkg));
  return dir;
}

const write = (dir: string, file: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
  fs.writeFileSync(path.join(dir, file), text);
};
const edit = (dir: string, file: string, change: (text: string) => string) => write(dir, file, change(fs.readFileSync(path.join(dir, file), 'utf8')));

/** The line of each test (by name), and the summary line (the last). */
function report(result: Result) {
  const context = `stdout: ${result.stdout}\nstderr: ${result.stderr}`;
  const summary = result.lines.at(-1);
  assert.ok(summary !== undefined, context);
  const tests = new Map(result.lines.slice(0, -1).map((line) => [String(line.test), line]));
  return { summary, tests, context };
}

/** An event of the scaffold's handler, as a file for `plugin run`. */
function eventFile(narrative: string, patient = A): string {
  const file = path.join(tempDir('charta-event-'), 'event.json');
  const event = createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c-1', fields: { narrative }, note: 'n-1', actor: 's-1', patient });
  fs.writeFileSync(file, JSON.stringify(event));
  return file;
}

/** A handler that reads its patient's chart and plans; `other:<key>` reads another patient first, `loop` reads until its budget ends it. */
const READER = `import { BaseHandler, addBannerAlert, type Effect, type EventName } from '@charta/plugin-sdk';

export class PlanCommittedHandler extends BaseHandler<'PLAN_COMMAND__POST_COMMIT'> {
  static override readonly RESPONDS_TO: readonly EventName[] = ['PLAN_COMMAND__POST_COMMIT'];

  async compute(): Promise<Effect[]> {
    const patient = this.event.context.patient.key;
    const narrative = String(this.event.context.command.data['narrative'] ?? '');
    if (narrative.startsWith('other:')) await this.data.patients.get(narrative.slice(6));
    if (narrative === 'loop') for (;;) await this.data.patients.get(patient);
    const chart = await this.data.chart.get(patient);
    const plans = await this.data.commands.list({ schema_key: 'plan' });
    this.log.info(\`\${chart.conditions.length} condition(s), \${plans.count} plan(s)\`);
    return chart.conditions.length > 0
      ? [addBannerAlert({ patient, key: 'conditions', narrative: \`\${chart.conditions.length} active condition(s)\`, placement: ['chart'], intent: 'info' })]
      : [];
  }
}
`;

const FIXTURE = {
  patients: [
    { key: A, first_name: 'Ada', last_name: 'Lovelace' },
    { key: B, first_name: 'Bob', last_name: 'Other' },
  ],
  chart: {
    [A]: {
      conditions: [
        { id: '1', status: 'active', coding: { code: 'E11' } },
        { id: '2', status: 'entered_in_error' },
      ],
    },
  },
  commands: [
    { uuid: '00000000-0000-4000-8000-000000000001', patient_key: A, schema_key: 'plan', created_at: '2026-01-01T00:00:00.000000Z' },
    { uuid: '00000000-0000-4000-8000-000000000002', patient_key: B, schema_key: 'plan', created_at: '2026-01-01T00:00:00.000000Z' },
  ],
};

const READER_TESTS = `import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { addBannerAlert, createEvent } from '@charta/plugin-sdk';
import { runInSandbox } from '@charta/plugin-sdk/testing';
import { PlanCommittedHandler } from '../src/reader/handlers.ts';

const A = '${A}';
const committed = (narrative: string) => createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'command-1', fields: { narrative }, patient: A });

describe('reader', () => {
  it('reads its patient from the fixture', async () => {
    const run = await runInSandbox(PlanCommittedHandler, committed('x'), { data: 'test/fixture.json' });
    assert.deepEqual(run.logs, [{ level: 'info', message: '1 condition(s), 1 plan(s)' }]);
    assert.deepEqual(run.effects, [addBannerAlert({ patient: A, key: 'conditions', narrative: '1 active condition(s)', placement: ['chart'], intent: 'info' })]);
    assert.deepEqual(run.reads.map((r) => [r.read, r.patient_key, r.rows]), [['chart.get', A, 1], ['commands.list', A, 1]]);
  });

  it('reads another patient', async () => {
    await runInSandbox(PlanCommittedHandler, committed('other:${B}'), { data: 'test/fixture.json' });
  });

  it('reads in a loop', async () => {
    await runInSandbox(PlanCommittedHandler, committed('loop'), { data: 'test/fixture.json' });
  });
});
`;

/** A project whose handler reads the record, with its fixture and its tests. */
async function readerProject(): Promise<string> {
  const dir = await newProject('Reader');
  edit(dir, 'CHARTA_MANIFEST.json', (text) => JSON.stringify({ ...JSON.parse(text), data: { read: ['patients', 'chart', 'commands'], reads_per_call: 3 } }));
  write(dir, 'src/reader/handlers.ts', READER);
  write(dir, 'test/fixture.json', JSON.stringify(FIXTURE));
  write(dir, 'test/handlers.test.ts', READER_TESTS);
  return dir;
}

const SETTIMEOUT_FAULT = "threw ReferenceError: 'setTimeout' is not defined";

describe('charta plugin test', () => {
  it("runs the scaffolded project's tests, every handler call in the sandbox", async () => {
    const dir = await newProject('Sandboxed');
    const r = await charta(['plugin', 'test', dir], {});
    const { summary, tests, context } = report(r);
    assert.equal(r.code, 0, context);
    assert.deepEqual(summary, {
      success: true,
      message: '4 tests passed in the sandbox',
      project_dir: dir,
      package: path.join(dir, 'dist/sandboxed-0.1.0.tar.gz'),
      tests: 4,
      passed: 4,
      failed: 0,
      skipped: 0,
      sandbox_calls: 4,
    });
    const name = 'PlanCommittedHandler › logs the committed plan and adds a follow-up instruction to the same note';
    assert.deepEqual(
      { ...tests.get(name), duration_ms: 0 },
      {
        success: true,
        message: `pass: ${name}`,
        test: name,
        file: 'test/handlers.test.ts',
        outcome: 'pass',
        duration_ms: 0,
      },
    );
    assert.equal(tests.size, 4);
    assert.ok(!/\n\s+at /.test(r.stdout), 'no stack trace on stdout');
  });

  it('a handler using setTimeout passes in plain Node, and fails in the sandbox as on the instance', async () => {
    const dir = await newProject('Timer');
    edit(dir, 'src/timer/handlers.ts', (text) =>
      text.replace('  compute(): Effect[] {', '  async compute(): Promise<Effect[]> {\n    await new Promise((resolve) => setTimeout(resolve, 1));'),
    );
    // In Node the handler runs.
    const module = (await import(pathToFileURL(path.join(dir, 'src/timer/handlers.ts')).href)) as { PlanCommittedHandler: HandlerClass };
    const event = createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c-1', fields: { narrative: 'Recheck' }, note: 'n-1' });
    const log = recordingLogger();
    assert.deepEqual(await runHandler(module.PlanCommittedHandler, event, { log }), [
      originateCommand('instruct', 'n-1', { comment: 'Follow up on: Recheck' }),
    ]);
    // In the sandbox it throws, and the tests that call it fail with the instance's fault line.
    const r = await charta(['plugin', 'test', dir], {});
    const { summary, tests, context } = report(r);
    assert.equal(r.code, 1, context);
    assert.deepEqual([summary.success, summary.message, summary.passed, summary.failed], [false, '3 of 4 tests failed in the sandbox', 1, 3]);
    const failed = tests.get('PlanCommittedHandler › logs the committed plan and adds a follow-up instruction to the same note')!;
    assert.equal(failed.success, false);
    assert.equal(failed.outcome, 'fail');
    assert.equal(failed.error, `plugin timer: handler timer/handlers.js:PlanCommittedHandler on PLAN_COMMAND__POST_COMMIT ${SETTIMEOUT_FAULT}`);
    assert.equal(tests.get('PlanCommittedHandler › is not given events its manifest does not list')!.success, true);
  });

  it('a handler using require passes in plain Node; the sandbox refuses its package as an instance would', async () => {
    const dir = await newProject('Requirer');
    edit(dir, 'src/requirer/handlers.ts', (text) =>
      text
        .replace('import { BaseHandler', "import { createRequire } from 'node:module';\nimport { BaseHandler")
        .replace(
          '    const { command, note } = this.event.context;',
          "    const { EOL } = createRequire(import.meta.url)('node:os') as { EOL: string };\n    const { command, note } = this.event.context;\n    void EOL;",
        ),
    );
    const module = (await import(pathToFileURL(path.join(dir, 'src/requirer/handlers.ts')).href)) as { PlanCommittedHandler: HandlerClass };
    const event = createEvent('PLAN_COMMAND__POST_COMMIT', { target: 'c-1', fields: { narrative: 'Recheck' }, note: 'n-1' });
    assert.equal((await runHandler(module.PlanCommittedHandler, event)).length, 1);
    const line = single(await charta(['plugin', 'test', dir], {}), 1);
    const reason =
      'requirer/handlers.js: evaluating the module failed: Error: the bundle imports "node:module": a plugin bundle must inline everything it imports';
    assert.deepEqual(line, {
      success: false,
      message: `The plugin cannot run in the sandbox (an instance would refuse it): ${reason}`,
      project_dir: dir,
      package: path.join(dir, 'dist/requirer-0.1.0.tar.gz'),
      errors: [reason],
    });
  });

  it('this.data reads the fixture; an out-of-scope read and a budget overrun fail the test as they fail the call on the instance', async () => {
    const dir = await readerProject();
    const r = await charta(['plugin', 'test', dir], {});
    const { summary, tests, context } = report(r);
    assert.equal(r.code, 1, context);
    assert.deepEqual([summary.tests, summary.passed, summary.failed, summary.sandbox_calls], [3, 1, 2, 3]);
    assert.equal(tests.get('reader › reads its patient from the fixture')!.success, true, context);
    const fault = 'plugin reader: handler reader/handlers.js:PlanCommittedHandler on PLAN_COMMAND__POST_COMMIT';
    assert.equal(
      tests.get('reader › reads another patient')!.error,
      `${fault} threw DataError: patient ${B} is not the event's patient (the manifest's data.scope is event_patient)`,
    );
    assert.equal(tests.get('reader › reads in a loop')!.error, `${fault} went over its read budget: more than 3 reads in one call`);
  });

  it('a directory without test files is a failure line; a path that is no directory a usage line', async () => {
    const dir = await newProject('Untested');
    fs.rmSync(path.join(dir, 'test'), { recursive: true });
    assert.deepEqual(single(await charta(['plugin', 'test', dir], {}), 1), {
      success: false,
      message: `No tests found: no *.test.ts (or .mts, .js, .mjs…) file in ${dir}`,
      project_dir: dir,
    });
    const missing = path.join(dir, 'nope');
    assert.deepEqual(single(await charta(['plugin', 'test', missing], {}), 2), { success: false, message: `Not a directory: ${missing}`, path: missing });
  });
});

describe('charta plugin run', () => {
  let scaffold: string;
  let reader: string;
  before(async () => {
    [scaffold, reader] = await Promise.all([newProject('Runner'), readerProject()]);
  });

  it("prints the handler's log lines, as charta logs does, and its effects", async () => {
    const r = await charta(['plugin', 'run', scaffold, '--event', eventFile('Recheck blood pressure')], {});
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.lines.length, 2, r.stdout);
    const [log, answer] = r.lines as unknown as [Record<string, any>, Record<string, any>];
    assert.equal(typeof log.message.timestamp, 'string');
    assert.deepEqual(
      { ...log, message: { ...log.message, timestamp: '…' } },
      {
        success: true,
        message: {
          event: 'plan c-1 committed by s-1: Recheck blood pressure',
          level: 'info',
          timestamp: '…',
          source: 'plugin',
          plugin: 'runner',
          handler: 'runner/handlers.js:PlanCommittedHandler',
          event_type: 'PLAN_COMMAND__POST_COMMIT',
        },
      },
    );
    assert.deepEqual(answer, {
      success: true,
      message: 'runner/handlers.js:PlanCommittedHandler answered 1 effect(s) to PLAN_COMMAND__POST_COMMIT',
      handler: 'runner/handlers.js:PlanCommittedHandler',
      event_type: 'PLAN_COMMAND__POST_COMMIT',
      effects: [originateCommand('instruct', 'n-1', { comment: 'Follow up on: Recheck blood pressure' })],
      reads: [],
    });
  });

  it('through tsx as from the bundle', async () => {
    const args = ['plugin', 'run', scaffold, '--event', eventFile('Recheck')];
    const run = promisify(execFile);
    const env = { ...process.env, NODE_TEST_CONTEXT: undefined };
    const viaTsx = await run(process.execPath, ['--import', 'tsx', path.join(REPO, 'packages/cli/src/main.ts'), ...args], { cwd: REPO, env });
    const viaBin = await charta(args, {});
    const stable = (stdout: string) => stdout.replace(/"timestamp":"[^"]+"/g, '"timestamp":"…"');
    assert.equal(stable(viaTsx.stdout), stable(viaBin.stdout));
    assert.match(viaBin.stdout, /answered 1 effect\(s\)/);
  });

  it('reads the fixture; a call that faults is its error line and a failure line, exit 1', async () => {
    const fixture = path.join(reader, 'test/fixture.json');
    const ok = await charta(['plugin', 'run', reader, '--event', eventFile('x'), '--fixture', fixture], {});
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const answer = ok.lines.at(-1)!;
    assert.equal((answer.effects as unknown[]).length, 1);
    assert.deepEqual(answer.reads, [
      { read: 'chart.get', patient_key: A, keys: [A], rows: 1, refused: null },
      { read: 'commands.list', patient_key: A, keys: ['00000000-0000-4000-8000-000000000001'], rows: 1, refused: null },
    ]);

    const r = await charta(['plugin', 'run', reader, '--event', eventFile(`other:${B}`), '--fixture', fixture], {});
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const [error, failed] = r.lines as unknown as [Record<string, any>, Record<string, any>];
    const why = `threw DataError: patient ${B} is not the event's patient (the manifest's data.scope is event_patient)`;
    assert.equal(error.success, false);
    assert.equal(error.message.event, `plugin reader: handler reader/handlers.js:PlanCommittedHandler on PLAN_COMMAND__POST_COMMIT ${why}`);
    assert.equal(error.message.fault, 'threw');
    assert.deepEqual(failed, {
      success: false,
      message: `reader/handlers.js:PlanCommittedHandler on PLAN_COMMAND__POST_COMMIT ${why}`,
      handler: 'reader/handlers.js:PlanCommittedHandler',
      event_type: 'PLAN_COMMAND__POST_COMMIT',
      effects: [],
      reads: [
        {
          read: 'patients.get',
          patient_key: B,
          keys: [],
          rows: 0,
          refused: `patient ${B} is not the event's patient (the manifest's data.scope is event_patient)`,
        },
      ],
      fault: 'threw',
    });
  });

  it('an event no handler is given: one line, no effects', async () => {
    const file = path.join(tempDir('charta-event-'), 'event.json');
    fs.writeFileSync(file, JSON.stringify(createEvent('PLAN_COMMAND__POST_UPDATE', { target: 'c-1', patient: A })));
    assert.deepEqual(single(await charta(['plugin', 'run', scaffold, '--event', file], {}), 0), {
      success: true,
      message: "No handler of runner is given PLAN_COMMAND__POST_UPDATE (its manifest's events, within each class's RESPONDS_TO)",
      event_type: 'PLAN_COMMAND__POST_UPDATE',
      effects: [],
    });
  });

  it('bad input is one line: a missing, malformed or unknown event, a bad fixture, an undeclared secret (exit 2)', async () => {
    const dir = tempDir('charta-bad-');
    const file = (name: string, text: string) => {
      fs.writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const missing = path.join(dir, 'missing.json');
    const cases: Array<[string[], string]> = [
      [['--event', missing], `Cannot read the --event file ${missing}: no such file`],
      [['--event', file('malformed.json', '{"type": ')], `The --event file ${path.join(dir, 'malformed.json')} is not JSON: ${jsonError('{"type": ')}`],
      [
        ['--event', file('list.json', '[]')],
        `The --event file ${path.join(dir, 'list.json')} is not an event: a JSON object with its "type" (as the instance sends it, or createEvent of the SDK builds it)`,
      ],
      [
        ['--event', file('unknown.json', '{"type": "PLAN_COMMAND__POST_SHOUT"}')],
        `The --event file ${path.join(dir, 'unknown.json')} has the type "PLAN_COMMAND__POST_SHOUT", which is not an event name Charta knows (docs/plugins.md, "Events")`,
      ],
      [['--event', eventFile('x'), '--fixture', missing], `Cannot read the --fixture file ${missing}: no such file`],
      [
        ['--event', eventFile('x'), '--fixture', file('fixture.json', '{"patients": [{"key": "ada"}], "notes": 1}')],
        `The --fixture file ${path.join(dir, 'fixture.json')} is not a fixture: patients[0].key must be a patient key (32 lowercase hexadecimal characters); notes must be a list of rows`,
      ],
      [
        ['--event', eventFile('x'), '--secret', 'API_TOKEN=s3cr3t'],
        "Cannot run the plugin with these flags: secret API_TOKEN is not declared in the manifest's secrets (none)",
      ],
    ];
    for (const [args, message] of cases) {
      const line = single(await charta(['plugin', 'run', scaffold, ...args], {}), 2);
      assert.equal(line.message, message, args.join(' '));
      assert.doesNotMatch(JSON.stringify(line), /s3cr3t/);
    }
    assert.equal(
      single(await charta(['plugin', 'run', scaffold], {}), 2).message,
      'Give --event FILE (an event) or --tick [TIME] (a tick of a scheduled handler)',
    );
  });
});

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

/** Two scheduled handlers: one logs its tick and plans, one throws on Sundays. */
const SCHEDULED = `import { ScheduledHandler, addBannerAlert, type Effect } from '@charta/plugin-sdk';

export class Nightly extends ScheduledHandler {
  static override readonly SCHEDULE = '0 2 * * *';

  compute(): Effect[] {
    this.log.info(\`tick \${this.tick.tick} after \${this.tick.previous_tick} as \${this.event.actor.id}\`);
    return [addBannerAlert({ patient: '${A}', key: 'nightly', narrative: \`Checked \${this.tick.tick.slice(0, 10)}\`, placement: ['chart'], intent: 'info' })];
  }
}

export class Weekly extends ScheduledHandler {
  static override readonly SCHEDULE = '30 6 * * 1';

  compute(): Effect[] {
    throw new Error('weekly ' + this.tick.tick);
  }
}
`;

const SCHEDULED_TESTS = `import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTickEvent } from '@charta/plugin-sdk';
import { runInSandbox, SandboxFault } from '@charta/plugin-sdk/testing';
import { Nightly, Weekly } from '../src/nightly/scheduled.ts';

describe('scheduled handlers', () => {
  it('Nightly runs its tick in the sandbox', async () => {
    const event = createTickEvent({ tick: '2026-11-26T02:00:00Z', previous_tick: '2026-11-25T02:00:00Z', schedule: Nightly.SCHEDULE, plugin: 'nightly' });
    const { called, effects, logs } = await runInSandbox(Nightly, event);
    assert.equal(called, true);
    assert.deepEqual(logs, [{ level: 'info', message: 'tick 2026-11-26T02:00:00.000Z after 2026-11-25T02:00:00.000Z as plugin:nightly' }]);
    assert.equal(effects.length, 1);
  });

  it('Weekly faults in the sandbox as on the instance', async () => {
    await assert.rejects(runInSandbox(Weekly, createTickEvent({ tick: '2026-11-23T06:30:00Z' })), (err: unknown) => err instanceof SandboxFault && err.kind === 'threw');
  });
});
`;

async function scheduledProject(): Promise<string> {
  const dir = await newProject('Nightly');
  const handler = (cls: string) => ({ entry: 'nightly/scheduled.js', class: cls, events: ['CRON'], description: cls });
  edit(dir, 'CHARTA_MANIFEST.json', (text) => {
    const manifest = JSON.parse(text);
    manifest.components.handlers.push(handler('Nightly'), handler('Weekly'));
    return JSON.stringify(manifest);
  });
  write(dir, 'src/nightly/scheduled.ts', SCHEDULED);
  write(dir, 'test/scheduled.test.ts', SCHEDULED_TESTS);
  return dir;
}

describe('scheduled handlers, locally', () => {
  let dir: string;
  before(async () => {
    dir = await scheduledProject();
  });

  it('charta plugin test runs a CRON event built with createTickEvent through runInSandbox', async () => {
    const r = await charta(['plugin', 'test', dir], {});
    const { summary, tests, context } = report(r);
    assert.equal(r.code, 0, context);
    assert.equal(summary.success, true, context);
    assert.equal(tests.get('scheduled handlers › Nightly runs its tick in the sandbox')?.success, true, context);
    assert.equal(tests.get('scheduled handlers › Weekly faults in the sandbox as on the instance')?.success, true, context);
  });

  it('charta plugin run --tick TIME --handler runs the tick due at that time: its log lines (with the tick) and effects', async () => {
    const r = await charta(['plugin', 'run', dir, '--tick', '2026-11-26T13:45:00Z', '--handler', 'Nightly'], {});
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const [log, answer] = r.lines as unknown as [Record<string, any>, Record<string, any>];
    assert.equal(log.message.event, 'tick 2026-11-26T02:00:00.000Z after 2026-11-25T02:00:00.000Z as plugin:nightly');
    assert.equal(log.message.tick, '2026-11-26T02:00:00.000Z');
    assert.equal(log.message.event_type, 'CRON');
    assert.equal(answer.message, 'nightly/scheduled.js:Nightly answered 1 effect(s) to CRON');
    assert.deepEqual(answer.effects, [
      { type: 'ADD_BANNER_ALERT', payload: { patient: A, key: 'nightly', narrative: 'Checked 2026-11-26', placement: ['chart'], intent: 'info' } },
    ]);
  });

  it('a tick that faults is its error line and a failure line, exit 1; --tick without a time is now', async () => {
    const r = await charta(['plugin', 'run', dir, '--tick', '--handler', 'nightly/scheduled.js:Weekly'], {});
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const failure = r.lines.at(-1)!;
    assert.equal(failure.fault, 'threw');
    assert.match(String(failure.message), /^nightly\/scheduled\.js:Weekly on CRON threw Error: weekly \d{4}-\d{2}-\d{2}T06:30:00\.000Z/);
  });

  it('bad input is one usage line (exit 2): several scheduled handlers and none named, one without a schedule, a time that is none, --event and --tick', async () => {
    const cases: Array<[string[], string]> = [
      [
        ['--tick'],
        'nightly has several scheduled handlers; name one with --handler: nightly/scheduled.js:Nightly (0 2 * * *), nightly/scheduled.js:Weekly (30 6 * * 1)',
      ],
      [
        ['--tick', '--handler', 'PlanCommittedHandler'],
        'nightly/handlers.js:PlanCommittedHandler has no schedule (the scheduled handlers of nightly: nightly/scheduled.js:Nightly (0 2 * * *), nightly/scheduled.js:Weekly (30 6 * * 1))',
      ],
      [['--tick', 'yesterday'], '--tick "yesterday" is not an ISO 8601 time (e.g. 2026-11-26T02:00:00Z)'],
      [['--tick', '--event', eventFile('x')], 'Give --event or --tick, not both'],
      [['--handler', 'Nightly', '--event', eventFile('x')], '--handler names the scheduled handler of --tick'],
      [[], 'Give --event FILE (an event) or --tick [TIME] (a tick of a scheduled handler)'],
    ];
    for (const [args, message] of cases) {
      const line = single(await charta(['plugin', 'run', dir, ...args], {}), 2);
      assert.equal(line.message, message, args.join(' '));
    }
  });
});
