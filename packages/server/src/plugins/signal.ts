// What install, update, delete and the secrets endpoint signal once their write has committed
// (docs/architecture.md, "Signals"): one signal per write, so each process's runtime looks at the
// plugins once for it, whatever the write changed.
import type { Ctx } from '../context.ts';

/** What a committed write changed of the plugin `name`. */
export interface PluginWrite {
  /** Installed, deleted, its package replaced, enabled or disabled, or its grants changed. */
  plugin: boolean;
  /** Its secrets set or removed. */
  secrets: boolean;
}

/** `plugins-changed` when the plugin changed (its secrets with it, if they did), else `secrets-changed` when they did; nothing for a write that changed nothing. */
export function signalPluginWrite(ctx: Ctx, name: string, changed: PluginWrite): void {
  if (changed.plugin) ctx.signals?.emit({ type: 'plugins-changed', plugin: name });
  else if (changed.secrets) ctx.signals?.emit({ type: 'secrets-changed', plugin: name });
}
