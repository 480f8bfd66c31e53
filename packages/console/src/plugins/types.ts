// The plugin as GET /core/api/v1/plugins/ answers it (docs/api.md, "Plugins").
export interface Plugin {
  name: string;
  description: string;
  version: string;
  package_checksum: string;
  is_enabled: boolean;
  /** What an administrator allowed it past its default reach (docs/plugins.md, "Grants"). */
  grants: string[];
  created_at: string;
  updated_at: string;
  /** Where it stands in the runtime of the process that answered (docs/api.md, "Plugins"). */
  runtime: {
    state: 'running' | 'loading' | 'failing' | 'cannot-run' | 'stopped';
    detail: string | null;
    since: string | null;
    retry_at: string | null;
    failed_loads: number;
  };
  /** Its recent faults (docs/plugins.md, "Faults"). */
  faults: {
    last_hour: { failures: number; timeouts: number };
    last_day: { failures: number; timeouts: number };
    last_error: { timestamp: string; message: string; fault: string | null } | null;
  };
}

/** A dead letter as GET /core/api/v1/plugins/{name}/dead-letters/ answers it (docs/api.md, "Dead letters"). */
export interface DeadLetter {
  id: number;
  plugin: string;
  /** `<entry>:<class>`. */
  handler: string;
  event_id: string;
  event_type: string;
  /** The UUID of the command the event is about. */
  command: string;
  attempts: number;
  last_error: string;
  request_id: string | null;
  created_at: string;
  failed_at: string;
  /** The event as the handler was given it. */
  event: Record<string, unknown>;
}

export const PLUGINS = '/core/api/v1/plugins/';

export const pluginPath = (name: string) => `${PLUGINS}${encodeURIComponent(name)}/`;
