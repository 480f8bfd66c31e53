// Staff members by key (GET /core/api/v1/staff/{key}), for naming who wrote or committed a command
// (docs/console.md, "Patients and notes"). Each key is asked once per page load and kept in
// memory; a key that cannot be read (an older staff member removed, a refusal) reads as its first
// eight characters, as before names were shown.
import { useEffect, useState } from 'preact/hooks';
import type { StaffMember } from '@charta/api';
import { apiAs } from '../api.ts';

const known = new Map<string, Promise<StaffMember | undefined>>();

function member(key: string): Promise<StaffMember | undefined> {
  let found = known.get(key);
  if (found === undefined) {
    found = apiAs<StaffMember>((charta) => charta.staff.get(key)).catch(() => undefined);
    known.set(key, found);
  }
  return found;
}

/** `Alex Demo, MD` for a staff key, once read; undefined until then, or when it cannot be read. */
export function useStaffName(key: string): string | undefined {
  const [name, setName] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    void member(key).then((m) => live && setName(m === undefined ? undefined : m.credentials === '' ? m.name : `${m.name}, ${m.credentials}`));
    return () => {
      live = false;
    };
  }, [key]);
  return name;
}
