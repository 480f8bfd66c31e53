// Every path the client calls, built here and nowhere else. Variable segments are
// percent-encoded. The trailing-slash rule of the API (POST, PATCH and DELETE paths end
// with '/', GET works either way) is applied by `withSlashRule`, which the transport calls
// on every request, so a path written here never decides it by itself.

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export type ChartList = 'conditions' | 'medications' | 'goals';

export type AdminCatalogue =
  'staff' | 'lab-partners' | 'pharmacies' | 'reason-for-visit-codings' | 'questionnaires' | 'educational-materials' | 'dispense-units';

const API = '/core/api/v1';
const seg = (value: string) => encodeURIComponent(value);

export const paths = {
  token: () => '/auth/token',

  commands: () => `${API}/commands`,
  command: (uuid: string) => `${API}/commands/${seg(uuid)}`,
  commandCommit: (uuid: string) => `${API}/commands/${seg(uuid)}/commit`,
  commandEnterInError: (uuid: string) => `${API}/commands/${seg(uuid)}/enter-in-error`,
  commandFields: (uuid: string) => `${API}/commands/${seg(uuid)}/fields/`,
  commandAutocomplete: (uuid: string, field: string) => `${API}/commands/${seg(uuid)}/fields/${seg(field)}/autocomplete/`,

  patients: () => `${API}/patients`,
  patient: (key: string) => `${API}/patients/${seg(key)}`,
  staffMember: (key: string) => `${API}/staff/${seg(key)}`,
  audit: () => `${API}/audit/`,

  patientBannerAlerts: (key: string) => `${API}/patients/${seg(key)}/banner-alerts/`,
  patientMetadata: (key: string) => `${API}/patients/${seg(key)}/metadata/`,
  /** A chart list: conditions, medications or goals. */
  patientChart: (key: string, list: ChartList) => `${API}/patients/${seg(key)}/${list}/`,

  plugins: () => `${API}/plugins/`,
  pluginExtractMetadata: () => `${API}/plugins/extract-metadata/`,
  plugin: (name: string) => `${API}/plugins/${seg(name)}/`,
  pluginPackage: (name: string) => `${API}/plugins/${seg(name)}/package/`,
  pluginSecrets: (name: string) => `${API}/plugins/${seg(name)}/secrets/`,
  pluginDeadLetters: (name: string) => `${API}/plugins/${seg(name)}/dead-letters/`,
  pluginReads: (name: string) => `${API}/plugins/${seg(name)}/reads/`,
  pluginDeadLetter: (name: string, id: string | number) => `${API}/plugins/${seg(name)}/dead-letters/${seg(String(id))}/`,
  pluginDeadLetterReplay: (name: string, id: string | number) => `${API}/plugins/${seg(name)}/dead-letters/${seg(String(id))}/replay/`,

  /** The log stream (a WebSocket). */
  logStream: () => `${API}/logging/`,
  changes: () => `${API}/changes/`,
  logRecent: () => `${API}/logging/recent/`,

  /** An admin reference catalogue (API key only). */
  adminCatalogue: (catalogue: AdminCatalogue) => `${API}/admin/${catalogue}/`,
  adminLabTests: (partnerId: string) => `${API}/admin/lab-partners/${seg(partnerId)}/tests/`,

  notes: () => `${API}/notes`,
  note: (uuid: string) => `${API}/notes/${seg(uuid)}`,
  noteLock: (uuid: string) => `${API}/notes/${seg(uuid)}/lock`,
  noteUnlock: (uuid: string) => `${API}/notes/${seg(uuid)}/unlock`,
} as const;

/** POST, PATCH and DELETE paths end with '/'; GET paths are left as written. */
export function withSlashRule(method: Method, path: string): string {
  return method !== 'GET' && !path.endsWith('/') ? `${path}/` : path;
}
