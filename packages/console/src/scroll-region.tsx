// A table wider than a phone's screen scrolls sideways inside its own region rather than widening
// the page; the region takes the keyboard's focus, so it scrolls without a mouse, and is named for
// screen readers (docs/console.md, "Design system").
import type { ComponentChildren } from 'preact';

export function ScrollRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}
