// A list that renders only the rows in view (docs/console.md, "Live logs"): every row is
// ROW_HEIGHT pixels high, one spacer is as tall as all of them, and only the window of rows under
// the viewport (and OVERSCAN on each side) is in the DOM, so the DOM stays the same size whether
// the list holds ten rows or ten thousand. It follows the newest row while scrolled to the bottom;
// scrolled up (or once a row is picked), the rows under the reader stay put as the oldest are
// evicted (`shift`), and a button jumps back to the newest. A listbox: arrows, Page Up/Down, Home
// and End move the active row; End follows the newest again. Positions
// are set through the CSSOM (element.style), which the page's CSP allows (no style attributes).
import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** Pixels; the same as `.vlist-row`'s height in logs.css. */
export const ROW_HEIGHT = 28;
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
}

export function VirtualList<T>({ id, label, items, shift, keyOf, rowClass, render, activeIndex, onActivate }: Props<T>) {
  const box = useRef<HTMLDivElement>(null);
  const place = useRef<Place>({ top: 0, shift, height: 480, follow: true });
  const drawn = useRef({ top: -1, height: -1 });
  const applied = useRef(shift);
  const shiftNow = useRef(shift);
  const [, redraw] = useState(0);
  shiftNow.current = shift;

  const n = items.length;
  const p = place.current;
  const maxTop = Math.max(0, n * ROW_HEIGHT - p.height);
  const top = p.follow ? maxTop : Math.min(maxTop, Math.max(0, p.top - (shift - p.shift) * ROW_HEIGHT));
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(n, Math.ceil((top + p.height) / ROW_HEIGHT) + OVERSCAN);
  drawn.current = { top, height: p.height };

  useLayoutEffect(() => {
    const el = box.current;
    if (el === null) return;
    const evicted = shift - applied.current;
    applied.current = shift;
    // Only when following or when rows left the front: never fight a scroll the user is making.
    if (place.current.follow) {
      if (Math.abs(el.scrollTop - maxTop) >= 1) el.scrollTop = maxTop;
    } else if (evicted > 0) {
      el.scrollTop = Math.max(0, el.scrollTop - evicted * ROW_HEIGHT);
    }
    place.current = { ...place.current, top: el.scrollTop, shift };
  });

  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const observer = new ResizeObserver(() => {
      if (el.clientHeight === place.current.height) return;
      place.current = { ...place.current, height: el.clientHeight };
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
      top: el.scrollTop,
      shift: shiftNow.current,
      height: el.clientHeight,
      follow: el.scrollTop + el.clientHeight >= el.scrollHeight - ROW_HEIGHT / 2,
    };
    if (Math.abs(el.scrollTop - drawn.current.top) >= 1 || el.clientHeight !== drawn.current.height) redraw((x) => x + 1);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const el = box.current;
    if (n === 0 || el === null) return;
    const page = Math.max(1, Math.floor(el.clientHeight / ROW_HEIGHT) - 1);
    const current = activeIndex >= 0 ? activeIndex : -1;
    const from = current >= 0 ? current : Math.min(n - 1, Math.floor(el.scrollTop / ROW_HEIGHT));
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
    const rowTop = next * ROW_HEIGHT;
    let t = el.scrollTop;
    if (rowTop < t) t = rowTop;
    else if (rowTop + ROW_HEIGHT > t + el.clientHeight) t = rowTop + ROW_HEIGHT - el.clientHeight;
    el.scrollTop = t;
    place.current = { top: el.scrollTop, shift, height: el.clientHeight, follow: next === n - 1 };
    onActivate(next);
  };

  const onClick = (e: MouseEvent) => {
    const row = (e.target as HTMLElement).closest<HTMLElement>('[data-index]');
    const el = box.current;
    if (row === null || el === null) return;
    // A picked row stays where it is: the list stops following the newest line.
    place.current = { top: el.scrollTop, shift, height: el.clientHeight, follow: false };
    onActivate(Number(row.dataset.index));
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
      >
        <div class="vlist-space" style={{ height: `${n * ROW_HEIGHT}px` }}>
          <div class="vlist-window" style={{ transform: `translateY(${first * ROW_HEIGHT}px)` }}>
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
