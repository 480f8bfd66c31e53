// The console's icons (docs/console.md, "Design system"): Lucide's (the `lucide` package, ISC),
// each imported by name below so that only these reach the build (its modules have no side
// effects: the rest is tree-shaken away). An icon is drawn as inline SVG by <Icon>, in the
// current text colour, 1.125em square; it is decorative (aria-hidden), so a button or link keeps
// its own text as its name. To add one: find its name on lucide.dev, add it to this export list,
// and write <Icon node={Name} />.
import { h } from 'preact';
import type { IconNode } from 'lucide';

export {
  Activity,
  Check,
  CircleAlert,
  Copy,
  Download,
  Eraser,
  FilePlus,
  KeyRound,
  LogOut,
  Pause,
  Play,
  Plus,
  Power,
  PowerOff,
  Puzzle,
  RefreshCw,
  RotateCcw,
  Save,
  ScrollText,
  Search,
  ShieldCheck,
  Trash2,
  Upload,
  UserPlus,
  Users,
} from 'lucide';

/** One icon of the set above, decorative: hidden from screen readers and out of the tab order. */
export function Icon({ node, class: extra }: { node: IconNode; class?: string }) {
  return (
    <svg
      class={extra === undefined ? 'icon' : `icon ${extra}`}
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      {node.map(([tag, attrs], i) => h(tag, { key: i, ...attrs }))}
    </svg>
  );
}
