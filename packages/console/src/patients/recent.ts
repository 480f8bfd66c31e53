// The patients opened in this tab, newest first (docs/console.md, "Patients and notes"): in the
// page's memory only, like the credentials, so nothing about a patient outlives the tab.
import type { Patient } from '../clinical/types.ts';

const MAX = 5;
let recent: Patient[] = [];

export function opened(patient: Patient): void {
  recent = [patient, ...recent.filter((p) => p.key !== patient.key)].slice(0, MAX);
}

export function recentPatients(): Patient[] {
  return recent;
}

/** Signing out forgets them with the credentials. */
export function forgetRecent(): void {
  recent = [];
}
