// The clinical records as the API answers them (docs/api.md, "Patients", "Notes", "Commands",
// "Fields", "Autocomplete", "The patient's chart").
export type { Command, CommandState, Note, Patient } from '@charta/api';
import type { Coding as WireCoding, Fields, Note, OptionDocument } from '@charta/api';
import { CodeSystems } from '@charta/api/constants';

/** A field of a kind as `/fields/` lists it. */
export type Field = Fields['fields'][number];

/** A coded value as the console reads it: the wire's Coding (@charta/api), its display missing in some stored data. */
export type Coding = Omit<WireCoding, 'display'> & { display?: string };

/** The system of free text (docs/api.md, "Setting an autocomplete field"). */
export const UNSTRUCTURED = CodeSystems.UNSTRUCTURED;

/**
 * An autocomplete option as the console reads it from a command's stored data, or builds for
 * free text: the wire's option document (@charta/api), of which only its text and value are sure.
 */
export type Option = Pick<OptionDocument, 'text' | 'value'> &
  Partial<Pick<OptionDocument, 'disabled' | 'description' | 'annotations'>> & { extra?: { coding?: Coding[] } & Record<string, unknown> };

export type { Paginated as Page } from '@charta/api';

/** Whether commands of the note can be added or changed: the server says so (docs/api.md, "Notes"). */
export const writable = (note: Note) => note.takes_commands;
