// The console scenario (docs/performance.md, "Console"): the console in headless Chromium (Debian's,
// driven by playwright-core as the browser tests do) against a fresh demo instance in its own
// process (lib/charta-server.ts, startDemo) serving the real build.
// 1. First load, BENCH_CONSOLE_LOADS times, each in a fresh browser context (a cold cache): the bytes
//    transferred (the JavaScript's compressed bodies, and everything with headers, the sign-in's
//    API calls included) and, from the navigation's start, the sign-in form ready and the plugins
//    list rendered, the API key typed in by script the moment the form is there.
// 2. The live logs page at BENCH_CONSOLE_RATE lines/s (entries emitted on the server's own log bus,
//    as the log-fanout scenario does) for BENCH_DURATION seconds after BENCH_WARMUP of the same:
//    animation frames counted with requestAnimationFrame; a frame is dropped when the gap to the
//    previous one is over 20 ms (a 60 Hz frame is 16.7 ms); long tasks (over 50 ms) as the browser
//    reports them; the page's main-thread time (script, style and layout) from Chromium's
//    Performance.getMetrics. The same figures for the page idle as long, just before, show what the
//    machine's other work costs any page.
import path from 'node:path';
import type { Browser, CDPSession, Page } from 'playwright-core';
import { chromiumStatus, consoleBuild, launch } from '../../packages/console/test/support/browser.ts';
import { Child } from './child.ts';
import type { BenchOptions } from './options.ts';
import type { PaceResult } from './fanout.ts';
import { median } from './format.ts';

export const CONSOLE_SCENARIO = 'console';
/** The targets: under 150 KB of compressed JavaScript; no dropped frame at 1,000 lines/s. */
export const CONSOLE_TARGETS = { jsKiB: 150, droppedFrames: 0 };
const DROPPED_FRAME_MS = 20;
/**
 * tsx compiles this file with esbuild's keepNames, which wraps named inner functions in `__name(…)`;
 * the functions given to page.evaluate run in the page, which has no `__name`: give it one.
 */
const NAME_SHIM = 'globalThis.__name = (f) => f;';

async function newContext(browser: Browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript({ content: NAME_SHIM });
  return context;
}

export interface ConsoleLoad {
  /** The JavaScript's bodies as sent (gzip), bytes. */
  jsBytes: number;
  cssBytes: number;
  /** Every response of the load with its headers (the page, its files, the API calls), bytes. */
  transferBytes: number;
  requests: number;
  /** From the navigation's start, ms. */
  formMs: number;
  listMs: number;
}

/** A load's figures: the bytes and requests of the first load (every load transfers the same), formMs and listMs the medians over the loads. */
export interface ConsoleRow extends ConsoleLoad {
  engine: string;
  loads: number;
  /** Slowest load's list, ms. */
  listMaxMs: number;
  rate: number;
  seconds: number;
  emitted: number;
  /** Lines the page received during the measurement (its own count). */
  received: number;
  frames: number;
  fps: number;
  droppedFrames: number;
  longestFrameMs: number;
  longTasks: number;
  /** The page's main-thread time during the measurement, ms per second. */
  busy: Busy;
  /** The same page for as long with no line arriving (before the measurement): the machine's own jitter. */
  idle: { fps: number; droppedFrames: number; longestFrameMs: number; longTasks: number; busy: Busy };
  /** Rows in the list's DOM at the end. */
  domRows: number;
  /** Lines the server reported dropped for the page (slow consumer). */
  serverDropped: number;
}

async function signIn(page: Page, apiKey: string): Promise<{ formMs: number; listMs: number }> {
  return page.evaluate(async (key) => {
    const until = (test: () => boolean) =>
      new Promise<number>((resolve) => {
        if (test()) return resolve(performance.now());
        const observer = new MutationObserver(() => {
          if (!test()) return;
          observer.disconnect();
          resolve(performance.now());
        });
        observer.observe(document, { childList: true, subtree: true, characterData: true });
      });
    const formMs = await until(() => document.getElementById('api-key') !== null);
    const input = document.getElementById('api-key') as HTMLInputElement;
    input.value = key;
    input.dispatchEvent(new Event('input', { bubbles: true }));
    // Preact renders the typed key (its render queue runs before the next task) before the form is submitted.
    await new Promise((resolve) => setTimeout(resolve, 0));
    input.form!.requestSubmit();
    const listMs = await until(() => {
      const title = document.getElementById('installed-title');
      return title !== null && !(title.textContent ?? '').includes('…');
    });
    return { formMs, listMs };
  }, apiKey);
}

async function firstLoad(browser: Browser, url: string, apiKey: string): Promise<ConsoleLoad> {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    await page.goto(`${url}/console/`, { waitUntil: 'commit' });
    const { formMs, listMs } = await signIn(page, apiKey);
    const bytes = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const resources = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
      const of = (suffix: string) => resources.filter((r) => new URL(r.name).pathname.endsWith(suffix)).reduce((n, r) => n + r.encodedBodySize, 0);
      return {
        jsBytes: of('.js'),
        cssBytes: of('.css'),
        transferBytes: nav.transferSize + resources.reduce((n, r) => n + r.transferSize, 0),
        requests: 1 + resources.length,
      };
    });
    return { ...bytes, formMs, listMs };
  } finally {
    await context.close();
  }
}

interface Frames {
  frames: number;
  fps: number;
  dropped: number;
  longestMs: number;
  longTasks: number;
}

/** Main-thread time of the page per second of the window, ms (Chromium's Performance.getMetrics). */
export interface Busy {
  task: number;
  script: number;
  /** Style and layout. */
  layout: number;
}

async function metrics(cdp: CDPSession): Promise<Busy> {
  const { metrics: list } = (await cdp.send('Performance.getMetrics')) as { metrics: Array<{ name: string; value: number }> };
  const m = new Map(list.map((x) => [x.name, x.value]));
  const seconds = (name: string) => m.get(name) ?? 0;
  return { task: seconds('TaskDuration'), script: seconds('ScriptDuration'), layout: seconds('LayoutDuration') + seconds('RecalcStyleDuration') };
}

/** Animation frames and main-thread time while `during` runs. */
async function measureWindow(page: Page, cdp: CDPSession, during: () => Promise<unknown>): Promise<{ frames: Frames; busy: Busy }> {
  const before = await metrics(cdp);
  const started = performance.now();
  await page.evaluate(() => {
    const w = window as unknown as { benchFrames: { times: number[]; longTasks: number; stop: boolean } };
    const state = { times: [] as number[], longTasks: 0, stop: false };
    w.benchFrames = state;
    const observer = new PerformanceObserver((list) => (state.longTasks += list.getEntries().length));
    observer.observe({ type: 'longtask' });
    const loop = (t: number) => {
      state.times.push(t);
      if (state.stop) observer.disconnect();
      else requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
  });
  await during();
  const frames = await page.evaluate((droppedMs) => {
    const w = window as unknown as { benchFrames: { times: number[]; longTasks: number; stop: boolean } };
    w.benchFrames.stop = true;
    const t = w.benchFrames.times;
    let dropped = 0;
    let longest = 0;
    for (let i = 1; i < t.length; i++) {
      const gap = t[i]! - t[i - 1]!;
      if (gap > droppedMs) dropped++;
      longest = Math.max(longest, gap);
    }
    const span = t.length > 1 ? t[t.length - 1]! - t[0]! : 0;
    return { frames: t.length, fps: span > 0 ? ((t.length - 1) * 1000) / span : 0, dropped, longestMs: longest, longTasks: w.benchFrames.longTasks };
  }, DROPPED_FRAME_MS);
  const after = await metrics(cdp);
  const seconds = (performance.now() - started) / 1000;
  const per = (key: keyof Busy) => ((after[key] - before[key]) * 1000) / seconds;
  return { frames, busy: { task: per('task'), script: per('script'), layout: per('layout') } };
}

async function logsFrameRate(browser: Browser, url: string, apiKey: string, emit: (seconds: number, tag: string) => Promise<PaceResult>, opts: BenchOptions) {
  const context = await newContext(browser);
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.goto(`${url}/console/`);
    await signIn(page, apiKey);
    await page.getByRole('link', { name: 'Live logs' }).click();
    await page.locator('#log-status', { hasText: /^Live/ }).waitFor({ timeout: 10_000 });
    // The same page with no line arriving: what this machine gives any page meanwhile.
    const idle = await measureWindow(page, cdp, () => page.waitForTimeout(opts.duration * 1000));
    if (opts.warmup > 0) await emit(opts.warmup, 'warm-up');
    const received = () =>
      page.evaluate(() => Number(/([\d,]+) received/.exec(document.querySelector('.log-counts')?.textContent ?? '')?.[1]?.replace(/,/g, '') ?? 0));
    const before = await received();
    let paced: PaceResult | undefined;
    const loaded = await measureWindow(page, cdp, async () => {
      paced = await emit(opts.duration, 'measured');
    });
    // The last lines may still be on their way: give them a moment before counting.
    await page.waitForTimeout(300);
    const after = await received();
    const domRows = await page.locator('#log-lines .vlist-row').count();
    const serverDropped = await page.evaluate(() =>
      Number(/dropped ([\d,]+)/.exec(document.getElementById('log-dropped')?.textContent ?? '')?.[1]?.replace(/,/g, '') ?? 0),
    );
    return { paced: paced!, idle, loaded, received: after - before, domRows, serverDropped };
  } finally {
    await context.close();
  }
}

/** The console scenario on a demo instance of `engine`; undefined (with a line saying why) without Chromium. */
export async function consoleScenario(opts: BenchOptions, engine: string): Promise<ConsoleRow | undefined> {
  const chromium = chromiumStatus();
  if (chromium.executable === undefined) {
    console.log(`console: not measured: ${chromium.skip || chromium.failure}`);
    return undefined;
  }
  const consoleDir = consoleBuild();
  const child = new Child(path.join(import.meta.dirname, 'charta-server.ts'));
  let browser: Browser | undefined;
  try {
    const { url, apiKey } = await child.call<{ url: string; apiKey: string }>('startDemo', { engine, consoleDir });
    browser = await launch(chromium.executable);
    const loads: ConsoleLoad[] = [];
    for (let i = 0; i < opts.consoleLoads; i++) loads.push(await firstLoad(browser, url, apiKey));
    const first = loads[0]!;
    const emit = (seconds: number, tag: string) => child.call<PaceResult>('emitLogs', { rate: opts.consoleRate, seconds, tag });
    const { paced, idle, loaded, received, domRows, serverDropped } = await logsFrameRate(browser, url, apiKey, emit, opts);
    const row: ConsoleRow = {
      engine,
      loads: loads.length,
      jsBytes: first.jsBytes,
      cssBytes: first.cssBytes,
      transferBytes: first.transferBytes,
      requests: first.requests,
      formMs: median(loads.map((l) => l.formMs)),
      listMs: median(loads.map((l) => l.listMs)),
      listMaxMs: Math.max(...loads.map((l) => l.listMs)),
      rate: opts.consoleRate,
      seconds: paced.seconds,
      emitted: paced.emitted,
      received,
      frames: loaded.frames.frames,
      fps: loaded.frames.fps,
      droppedFrames: loaded.frames.dropped,
      longestFrameMs: loaded.frames.longestMs,
      longTasks: loaded.frames.longTasks,
      busy: loaded.busy,
      idle: {
        fps: idle.frames.fps,
        droppedFrames: idle.frames.dropped,
        longestFrameMs: idle.frames.longestMs,
        longTasks: idle.frames.longTasks,
        busy: idle.busy,
      },
      domRows,
      serverDropped,
    };
    console.log(
      `console   first load: JS ${(row.jsBytes / 1024).toFixed(1)} KiB compressed, CSS ${(row.cssBytes / 1024).toFixed(1)} KiB, ${(row.transferBytes / 1024).toFixed(1)} KiB transferred in ${row.requests} requests; ` +
        `sign-in form ${row.formMs.toFixed(0)} ms, plugins list ${row.listMs.toFixed(0)} ms (median of ${row.loads}, slowest ${row.listMaxMs.toFixed(0)} ms)`,
    );
    console.log(
      `console   live logs at ${row.rate.toLocaleString('en-US')} lines/s for ${row.seconds.toFixed(1)} s: ${row.fps.toFixed(1)} fps, ${row.droppedFrames} dropped frames (> ${DROPPED_FRAME_MS} ms; longest ${row.longestFrameMs.toFixed(1)} ms), ` +
        `${row.longTasks} long tasks; main thread ${row.busy.task.toFixed(0)} ms/s (script ${row.busy.script.toFixed(0)}, style and layout ${row.busy.layout.toFixed(0)}); ` +
        `idle: ${row.idle.fps.toFixed(1)} fps, ${row.idle.droppedFrames} dropped, ${row.idle.busy.task.toFixed(0)} ms/s; ${row.received.toLocaleString('en-US')} of ${row.emitted.toLocaleString('en-US')} lines received, ${row.serverDropped} dropped by the server; ${row.domRows} rows in the DOM`,
    );
    return row;
  } finally {
    await browser?.close();
    await child.stop();
  }
}
