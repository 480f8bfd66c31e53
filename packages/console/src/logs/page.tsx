// The live logs page (docs/console.md, "Live logs"): the instance's log stream over a WebSocket
// authenticated in its first message (stream.ts), kept in a bounded buffer (buffer.ts) and drawn
// by a virtual list (virtual-list.tsx). Lines arriving between two animation frames are added and
// drawn together, at most every other frame, however fast they come. Filters (plugin, minimum level,
// failures only, free text) apply to the buffer at once, the plugin's from the address too
// (`#logs?plugin=NAME`, address.ts); pause holds new lines back, counted; the selected line is
// expanded in place and shown whole beside the list (detail.tsx), and can be copied as JSON. The
// list fills the viewport's height under the controls.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { LogBuffer, indexOfId } from './buffer.ts';
import { clock, LEVELS, NO_FILTERS, rowOf, type Filters, type Level, type LogEntry, type Row } from './entry.ts';
import { openLogStream, type LogStream, type StreamStatus } from './stream.ts';
import { VirtualList } from './virtual-list.tsx';
import { LineDetail } from './detail.tsx';
import { logsHref, pluginOfHash } from './address.ts';
import './logs.css';
import { Eraser, Icon, Pause, Play, RefreshCw } from '../icon.tsx';

const number = (n: number) => n.toLocaleString('en-US');

/** A frame this soon after the last draw (the next one, at 60 Hz) draws nothing. */
const SKIP_WITHIN_MS = 20;
/** The list's least height, and the gap kept under it, in pixels. */
const MIN_LIST_PX = 320;
const BOTTOM_GAP_PX = 16;

const filtered = (f: Filters) => f.plugin !== '' || f.level !== NO_FILTERS.level || f.failuresOnly || f.text !== '';

function statusText(s: StreamStatus): string {
  switch (s.state) {
    case 'connecting':
      return s.attempt === 0 ? 'Connecting…' : `Reconnecting… (attempt ${s.attempt})`;
    case 'live':
      return s.reconnections === 0 ? 'Live' : `Live: reconnected (${s.reconnections} time${s.reconnections === 1 ? '' : 's'} so far)`;
    case 'waiting': {
      const lost = s.reason ? `Connection lost: ${s.reason}` : `Connection lost (code ${s.code})`;
      return `${lost}. Reconnecting in ${Math.max(1, Math.round((s.retryAt - Date.now()) / 1000))} s (attempt ${s.attempt})…`;
    }
    case 'refused':
      return `The log stream refused the credentials: ${s.reason || `code ${s.code}`}. Sign out and sign in again.`;
    case 'closed': // the console's stream reconnects: not reached
      return `Closed: ${s.reason || `code ${s.code}`}`;
  }
}

const rowClass = (r: Row) => (r.dropped > 0 ? 'log-dropped' : `level-${r.entry.level}${r.failure ? ' failure' : ''}`);

function RowText({ row }: { row: Row }) {
  const e = row.entry;
  if (row.dropped > 0) return <span class="ev">⚠ Server: {e.event}</span>;
  return (
    <>
      <span class="t">{clock(e.timestamp)}</span> <span class="lv">{e.level}</span>
      {e.plugin !== undefined && <span class="pl"> {e.plugin}</span>} <span class="ev">{e.event}</span>
    </>
  );
}

export function LogsPage() {
  const buffer = useMemo(() => new LogBuffer(), []);
  const [, setVersion] = useState(0);
  const [status, setStatus] = useState<StreamStatus>({ state: 'connecting', attempt: 0 });
  const [filters, setFilters] = useState<Filters>(() => {
    const initial = { ...NO_FILTERS, plugin: pluginOfHash(location.hash) };
    buffer.setFilters(initial);
    return initial;
  });
  const [selected, setSelected] = useState<Row | undefined>();
  const [installed, setInstalled] = useState<string[]>([]);
  const stream = useRef<LogStream | undefined>(undefined);
  const body = useRef<HTMLDivElement>(null);
  const head = useRef<HTMLDivElement>(null);

  // The page does not scroll by itself on open: the console focuses its content on a new page
  // (app.tsx), which scrolls a page taller than the window down to it (the nav and the controls
  // out of sight on a phone). Where the reader was is restored before that frame is painted.
  useEffect(() => {
    const x = scrollX;
    const y = scrollY;
    const frame = requestAnimationFrame(() => {
      if (scrollY !== y || scrollX !== x) scrollTo(x, y);
    });
    return () => cancelAnimationFrame(frame);
  }, []);

  // The list (and the panel beside it) reach down to the bottom of the viewport, at the page's
  // own scroll position: set on open and when the window or the controls above change size, as
  // a custom property (through the CSSOM: the CSP allows no style attribute).
  useLayoutEffect(() => {
    const el = body.current;
    if (el === null) return;
    const fit = () => {
      const top = el.getBoundingClientRect().top + scrollY;
      el.style.setProperty('--log-height', `${Math.max(MIN_LIST_PX, Math.floor(innerHeight - top - BOTTOM_GAP_PX))}px`);
    };
    fit();
    const observer = new ResizeObserver(fit);
    if (head.current !== null) observer.observe(head.current);
    addEventListener('resize', fit);
    return () => {
      observer.disconnect();
      removeEventListener('resize', fit);
    };
  }, []);

  useEffect(() => {
    let nextId = 1;
    let incoming: Row[] = [];
    let frame = 0;
    let drawnAt = -Infinity;
    const flush = (now: number) => {
      frame = 0;
      // Lines arriving in frame after frame are drawn every other frame: each draw moves more
      // rows, but the list's style, layout and paint are paid half as often.
      if (now - drawnAt < SKIP_WITHIN_MS) {
        frame = requestAnimationFrame(flush);
        return;
      }
      drawnAt = now;
      const batch = incoming;
      incoming = [];
      buffer.add(batch);
      setVersion((v) => v + 1);
    };
    const s = openLogStream({
      onEntry: (entry: LogEntry) => {
        const row = rowOf(nextId++, entry);
        if (row === undefined) return;
        incoming.push(row);
        // A hidden tab gets no animation frames: never hold more than the buffer would keep.
        if (incoming.length >= buffer.capacity) {
          buffer.add(incoming);
          incoming = [];
        }
        if (frame === 0) frame = requestAnimationFrame(flush);
      },
      onStatus: setStatus,
    });
    stream.current = s;
    return () => {
      s.close();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [buffer]);

  useEffect(() => {
    api((charta) => charta.plugins.list({ limit: 100 })).then(
      (page) => setInstalled(page.results.map((p) => p.name)),
      () => undefined, // the filter still offers the names seen in the stream
    );
  }, []);

  const apply = (next: Filters) => {
    buffer.setFilters(next);
    setFilters(next);
  };
  const change = (patch: Partial<Filters>) => {
    const next = { ...filters, ...patch };
    apply(next);
    // The address follows the plugin filter, so that it can be shared (no hashchange: the page stays).
    if (next.plugin !== filters.plugin) history.replaceState(history.state, '', logsHref(next.plugin));
  };
  const clearFilters = () => change(NO_FILTERS);

  // The plugin of the address, when it changes while the page is open (back and forward).
  useEffect(() => {
    const follow = () => {
      if (!/^#\/?logs\b/.test(location.hash)) return;
      const plugin = pluginOfHash(location.hash);
      setFilters((f) => {
        if (f.plugin === plugin) return f;
        const next = { ...f, plugin };
        buffer.setFilters(next);
        return next;
      });
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, [buffer]);
  const togglePause = () => {
    if (buffer.paused) buffer.resume();
    else buffer.pause();
    setVersion((v) => v + 1);
  };
  const clear = () => {
    buffer.clear();
    setSelected(undefined);
    setVersion((v) => v + 1);
  };

  const plugins = [...new Set([...installed, ...buffer.plugins, ...(filters.plugin === '' ? [] : [filters.plugin])])].sort();
  const shown = buffer.shown;
  const activeIndex = selected === undefined ? -1 : indexOfId(shown, selected.id);

  return (
    <section class="live-logs" aria-labelledby="logs-title">
      <div class="log-head" ref={head}>
        <h2 id="logs-title">Live logs</h2>
        <p id="log-status" role="status" class={`log-status ${status.state}`}>
          {statusText(status)}
          {status.state === 'waiting' && (
            <>
              {' '}
              <button type="button" class="secondary" onClick={() => stream.current?.retryNow()}>
                <Icon node={RefreshCw} />
                Reconnect now
              </button>
            </>
          )}
        </p>
        <div class="log-controls">
          <form class="log-filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
            <p>
              <label for="log-plugin">Plugin</label>
              <select id="log-plugin" value={filters.plugin} onChange={(e) => change({ plugin: e.currentTarget.value })}>
                <option value="">All plugins and the server</option>
                {plugins.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </select>
            </p>
            <p>
              <label for="log-level">Minimum level</label>
              <select id="log-level" value={filters.level} onChange={(e) => change({ level: e.currentTarget.value as Level })}>
                {LEVELS.map((l) => (
                  <option key={l} value={l}>
                    {l}
                  </option>
                ))}
              </select>
            </p>
            <p>
              <label for="log-text">Text</label>
              <input id="log-text" type="search" autocomplete="off" value={filters.text} onInput={(e) => change({ text: e.currentTarget.value })} />
            </p>
            <label class="choice">
              <input type="checkbox" checked={filters.failuresOnly} onChange={(e) => change({ failuresOnly: e.currentTarget.checked })} />
              Failures only
            </label>
          </form>
          <div class="actions log-actions">
            <button type="button" aria-pressed={buffer.paused} onClick={togglePause}>
              <Icon node={buffer.paused ? Play : Pause} />
              {buffer.paused ? 'Resume' : 'Pause'}
            </button>
            <button type="button" class="secondary" onClick={clear}>
              <Icon node={Eraser} />
              Clear
            </button>
            {buffer.paused && (
              <span id="log-held" class="log-held">
                Paused: {number(buffer.heldCount)} line{buffer.heldCount === 1 ? '' : 's'} held back
              </span>
            )}
          </div>
        </div>
        <p class="log-counts">
          <span id="log-shown">{number(shown.length)}</span> shown of <span id="log-kept">{number(buffer.rows.length)}</span> kept (the last{' '}
          {number(buffer.capacity)}); {number(buffer.received)} received
          {buffer.droppedByServer > 0 && (
            <span id="log-dropped" class="log-dropped-count">
              ; the server dropped {number(buffer.droppedByServer)} (slow connection)
            </span>
          )}
        </p>
      </div>
      <div class="log-body" ref={body}>
        <div class="log-box">
          <VirtualList
            id="log-lines"
            label="Log lines, newest last"
            items={shown}
            shift={buffer.shownEvicted}
            keyOf={(r) => r.id}
            rowClass={rowClass}
            render={(r) => <RowText row={r} />}
            activeIndex={activeIndex}
            onActivate={(i) => setSelected(shown[i])}
          />
          {shown.length === 0 &&
            (buffer.rows.length > 0 && filtered(filters) ? (
              <p id="log-empty" class="log-empty">
                No lines match —{' '}
                <button type="button" class="secondary log-clear-filters" onClick={clearFilters}>
                  clear filters
                </button>
              </p>
            ) : (
              <p id="log-empty" class="log-empty hint">
                No log line yet.
              </p>
            ))}
        </div>
        {selected !== undefined ? (
          <LineDetail row={selected} onClose={() => setSelected(undefined)} />
        ) : (
          <p class="log-detail-none hint">Pick a line to see all its fields here.</p>
        )}
      </div>
    </section>
  );
}
