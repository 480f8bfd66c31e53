// A list that renders only the rows in view (docs/console.md, "Live logs"): every row is
// ROW_HEIGHT pixels high (ROW_HEIGHT_NARROW on a narrow screen, where a row wraps over four lines)
// but the active one, which is expanded in place to its whole text (its height measured once when
// it becomes active or the width changes); one spacer is as tall as all of them, and only the window of rows under
// the viewport (and OVERSCAN on each side) is in the DOM, so the DOM stays the same size whether
// the list holds ten rows or ten thousand. It follows the newest row while scrolled to the bottom;
// scrolled up (or once a row is picked), the rows under the reader stay put as the oldest are
// evicted (`shift`), and a button jumps back to the newest. A listbox: arrows, Page Up/Down, Home
// and End move the active row; End follows the newest again. While a pointer is pressed on the
// list it does not follow (a line arriving between press and release would move another row under
// the pointer, and the click would pick it); it catches up on release. Positions
// are set through the CSSOM (element.style), which the page's CSP allows (no style attributes).
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { NARROW } from '../narrow.ts';

/** Pixels; the same as `.vlist-row`'s height in logs.css. */
export const ROW_HEIGHT = 28;
/** Pixels, under NARROW; the same as `.vlist-row`'s height in logs.css's narrow media query. */
export const ROW_HEIGHT_NARROW = 80;
const rowHeightNow = () => (matchMedia(NARROW).matches ? ROW_HEIGHT_NARROW : ROW_HEIGHT);
const OVERSCAN = 8;

interface Props<T> {
  id: string;
  label: string;
  /** The rows, oldest first (the same array may be changed in place: the parent re-renders). */
  items: T[];
  /** How many rows have left the front of `items` so far (eviction): keeps a reader's place. */
  shift: number;
  keyOf: (item: T) => number;
  rowClass: (item: T) => string;
  render: (item: T) => ComponentChildren;
  /** The active row's index, -1 for none. */
  activeIndex: number;
  onActivate: (index: number) => void;
}

interface Place {
  top: number;
  /** `shift` when `top` was read. */
  shift: number;
  height: number;
  /** Scrolled to the bottom: stay there as rows arrive. */
  follow: boolean;
  /** A row's height in pixels (ROW_HEIGHT or ROW_HEIGHT_NARROW, by the width). */
  rh: number;
}

/** The active row's measured extra height over a row's (it is expanded to its whole text). */
interface Expanded {
  key: number;
  width: number;
  extra: number;
}

export function VirtualList<T>({ id, label, items, shift, keyOf, rowClass, render, activeIndex, onActivate }: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  const place = useRef<Place>({ top: 0, shift, height: 480, follow: true, rh: rowHeightNow() });
  const expanded = useRef<Expanded>({ key: -1, width: -1, extra: 0 });
  /** A row just picked and measured: scroll it into view whole (as far as it fits) once drawn expanded. */
  const reveal = useRef(-1);
  const drawn = useRef({ top: -1, height: -1 });
  /** A pointer is pressed on the list: hold the rows still until it is released. */
  const pressed = useRef(false);
  const applied = useRef(shift);
  const shiftNow = useRef(shift);
  const [, redraw] = useState(0);
  shiftNow.current = shift;

  const n = items.length;
  const p = place.current;
  const rh = p.rh;
  const activeKey = activeIndex >= 0 && activeIndex < n ? keyOf(items[activeIndex]!) : -1;
  // Rows after the active one are lower by its extra height (0 until it is measured).
  const extra = activeKey >= 0 && expanded.current.key === activeKey ? expanded.current.extra : 0;
  const offsetOf = (i: number) => i * rh + (activeKey >= 0 && i > activeIndex ? extra : 0);
  const maxTop = Math.max(0, n * rh + extra - p.height);
  const following = p.follow && !pressed.current;
  const top = following ? maxTop : Math.min(maxTop, Math.max(0, p.top - (shift - p.shift) * rh));
  let firstInView: number;
  if (activeKey < 0 || top < activeIndex * rh) firstInView = Math.floor(top / rh);
  else if (top < (activeIndex + 1) * rh + extra) firstInView = activeIndex;
  else firstInView = Math.floor((top - extra) / rh);
  const first = Math.max(0, firstInView - OVERSCAN);
  const last = Math.min(n, Math.ceil((top + p.height) / rh) + OVERSCAN);
  drawn.current = { top, height: p.height };

  useLayoutEffect(() => {
    const el = box.current;
    if (el === null) return;
    const evicted = shift - applied.current;
    applied.current = shift;
    // Only when following or when rows left the front: never fight a scroll the user is making.
    if (place.current.follow && !pressed.current) {
      if (Math.abs(el.scrollTop - maxTop) >= 1) el.scrollTop = maxTop;
    } else if (evicted > 0) {
      el.scrollTop = Math.max(0, el.scrollTop - evicted * rh);
    }
    place.current = { ...place.current, top: el.scrollTop, shift };
    // The active row, expanded: measured when it becomes active or the width changes, not per draw.
    if (activeKey < 0) return;
    const e = expanded.current;
    if (reveal.current === activeKey && e.key === activeKey) {
      reveal.current = -1;
      const rowTop = activeIndex * rh;
      const rowBottom = rowTop + rh + e.extra;
      if (rowBottom > el.scrollTop + el.clientHeight) el.scrollTop = Math.min(rowTop, rowBottom - el.clientHeight);
      place.current = { ...place.current, top: el.scrollTop };
    }
    if (e.key === activeKey && e.width === el.clientWidth) return;
    const row = el.querySelector<HTMLElement>(`[data-key="${activeKey}"]`);
    if (row === null) return;
    expanded.current = { key: activeKey, width: el.clientWidth, extra: Math.max(0, row.offsetHeight - rh) };
    if (e.key !== activeKey && expanded.current.extra > 0) reveal.current = activeKey;
    if (expanded.current.extra !== extra || e.key !== activeKey) redraw((x) => x + 1);
  });

  useEffect(() => {
    // After the release's mouseup and click (dispatched in the same task as pointerup): the click
    // lands on the row that was pressed.
    const release = () =>
      setTimeout(() => {
        if (!pressed.current) return;
        pressed.current = false;
        redraw((x) => x + 1);
      });
    addEventListener('pointerup', release);
    addEventListener('pointercancel', release);
    return () => {
      removeEventListener('pointerup', release);
      removeEventListener('pointercancel', release);
    };
  }, []);

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const observer = new ResizeObserver(() => {
      const rowHeight = rowHeightNow();
      if (el.clientHeight === place.current.height && rowHeight === place.current.rh && el.clientWidth === expanded.current.width) return;
      place.current = { ...place.current, height: el.clientHeight, rh: rowHeight };
      redraw((x) => x + 1);
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const onScroll = () => {
    // A scroll queued before the list left the page arrives after it left: nothing to place.
    const el = box.current;
    if (el === null) return;
    place.current = {
      ...place.current,
      top: el.scrollTop,
      shift: shiftNow.current,
      height: el.clientHeight,
      follow: el.scrollTop + el.clientHeight >= el.scrollHeight - place.current.rh / 2,
    };
    if (Math.abs(el.scrollTop - drawn.current.top) >= 1 || el.clientHeight !== drawn.current.height) redraw((x) => x + 1);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const el = box.current;
    if (n === 0 || el === null) return;
    const page = Math.max(1, Math.floor(el.clientHeight / rh) - 1);
    const current = activeIndex >= 0 ? activeIndex : -1;
    const from = current >= 0 ? current : Math.min(n - 1, Math.floor(el.scrollTop / rh));
    let next: number;
    switch (e.key) {
      case 'ArrowDown':
        next = current < 0 ? from : from + 1;
        break;
      case 'ArrowUp':
        next = current < 0 ? from : from - 1;
        break;
      case 'PageDown':
        next = from + page;
        break;
      case 'PageUp':
        next = from - page;
        break;
      case 'Home':
        next = 0;
        break;
      case 'End':
        next = n - 1;
        break;
      default:
        return;
    }
    e.preventDefault();
    next = Math.max(0, Math.min(n - 1, next));
    // Once `next` is active, the rows before it are all one row high.
    const rowTop = next * rh;
    let t = el.scrollTop;
    if (rowTop < t) t = rowTop;
    else if (rowTop + rh > t + el.clientHeight) t = rowTop + rh - el.clientHeight;
    el.scrollTop = t;
    place.current = { ...place.current, top: el.scrollTop, shift, height: el.clientHeight, follow: next === n - 1 };
    onActivate(next);
  };

  const onClick = (e: MouseEvent) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('[data-index]');
    const el = box.current;
    if (row === null || el === null) return;
    // A picked row stays where it is: the list stops following the newest line. Below the
    // expanded row, it would move up as that row folds: scroll with it.
    const index = Number(row.dataset.index);
    if (activeKey >= 0 && index > activeIndex && extra > 0) el.scrollTop = Math.max(0, el.scrollTop - extra);
    place.current = { ...place.current, top: el.scrollTop, shift, height: el.clientHeight, follow: false };
    onActivate(index);
  };

  const toNewest = () => {
    const el = box.current!;
    place.current = { ...place.current, follow: true };
    el.scrollTop = el.scrollHeight;
    redraw((x) => x + 1);
  };

  const rows: ComponentChildren[] = [];
  for (let i = first; i < last; i++) {
    const item = items[i]!;
    const active = i === activeIndex;
    rows.push(
      <div
        key={keyOf(item)}
        id={`${id}-row-${keyOf(item)}`}
        role="option"
        aria-selected={active}
        aria-posinset={i + 1}
        aria-setsize={n}
        data-index={i}
        data-key={keyOf(item)}
        class={`vlist-row ${rowClass(item)}${active ? ' active' : ''}`}
      >
        {render(item)}
      </div>,
    );
  }
  const activeRendered = activeIndex >= first && activeIndex < last;
  return (
    <>
      <div
        ref={box}
        id={id}
        class="vlist"
        role="listbox"
        tabIndex={0}
        aria-label={label}
        aria-activedescendant={activeRendered ? `${id}-row-${keyOf(items[activeIndex]!)}` : undefined}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        onClick={onClick}
        onPointerDown={() => (pressed.current = true)}
      >
        <div class="vlist-space" style={{ height: `${n * rh + extra}px` }}>
          <div class="vlist-window" style={{ transform: `translateY(${offsetOf(first)}px)` }}>
            {rows}
          </div>
        </div>
      </div>
      {!p.follow && n > 0 && (
        <button type="button" class="secondary vlist-newest" onClick={toNewest}>
          Jump to the newest line
        </button>
      )}
    </>
  );
}
