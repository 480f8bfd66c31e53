// The 15 command kinds a note can take (docs/command-kinds.md), offered by "Add a command": their
// keys and the names a person reads (@charta/api). Every kind's form is built from its /fields/
// answer, never here.
import { COMMAND_KIND_LABELS, type CommandKindKey } from '@charta/api/constants';

export const KINDS: Array<{ key: string; label: string }> = (Object.keys(COMMAND_KIND_LABELS) as CommandKindKey[]).map((key) => ({
  key,
  label: COMMAND_KIND_LABELS[key],
}));

export const kindLabel = (key: string) => (Object.hasOwn(COMMAND_KIND_LABELS, key) ? COMMAND_KIND_LABELS[key as CommandKindKey] : key);
