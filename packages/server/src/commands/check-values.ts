// The checks that need no database: each value of a command's `values` (create / PATCH)
// against the type and limits of its field, normalised; and, at commit, which required fields
// are missing. The field types and their rules are in docs/command-kinds.md.
import type { CommandKind, FieldDef, FieldType } from './kinds/types.ts';
import type { FieldProblem } from '../http/problem.ts';

export type FieldError = FieldProblem;

type Result = { ok: true; value: unknown } | { ok: false; errors: FieldError[] };

/** Checks one non-null value of a field; `path` is the error path (`values.<name>`). */
type Validator = (raw: unknown, field: FieldDef, path: string) => Result;

const pass = (value: unknown): Result => ({ ok: true, value });
const fail = (field: string, message: string): Result => ({ ok: false, errors: [{ field, message }] });

/**
 * Validates a `values` object (from create or PATCH) against a kind.
 * Returns the normalised values (same keys) or the list of every error found.
 */
export function validateValues(kind: CommandKind, values: unknown): { ok: true; values: Record<string, unknown> } | { ok: false; errors: FieldError[] } {
  if (!isPlainObject(values)) {
    return { ok: false, errors: [{ field: 'values', message: 'values must be a JSON object' }] };
  }
  const fields = new Map(kind.fields.map((field) => [field.name, field]));
  const allowed = kind.fields.map((field) => field.name).join(', ');
  const errors: FieldError[] = [];
  const normalised: Record<string, unknown> = {};

  for (const [key, raw] of Object.entries(values)) {
    const path = `values.${key}`;
    const field = fields.get(key);
    if (field === undefined) {
      errors.push({ field: path, message: `Unknown field '${key}' for ${kind.key}; allowed fields: ${allowed}` });
      continue;
    }
    if (raw === null) {
      normalised[key] = null;
      continue;
    }
    const result = validators[field.type](raw, field, path);
    if (result.ok) normalised[key] = result.value;
    else errors.push(...result.errors);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, values: normalised };
}

/** Fields required at commit that are missing (absent, null, '' or empty list) in data. */
export function missingRequired(kind: CommandKind, data: Record<string, unknown>): FieldError[] {
  return kind.fields
    .filter((field) => field.required && isMissing(Object.hasOwn(data, field.name) ? data[field.name] : undefined))
    .map((field) => ({ field: `values.${field.name}`, message: `${field.name} is required to commit ${kind.key}` }));
}

function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

// ---------------------------------------------------------------------------------------
// One validator per field type.

const validators: Record<FieldType, Validator> = {
  MultiLineTextField: (raw, field, path) => checkText(raw, field, path, false),
  TextField: (raw, field, path) => checkText(raw, field, path, true),
  ChoiceField: checkChoice,
  MultipleChoiceField: checkMultipleChoice,
  DateField: checkDate,
  ApproximateDateField: checkApproximateDate,
  IntegerField: checkInteger,
  DecimalField: checkDecimal,
  CheckboxField: checkCheckbox,
  AutocompleteField: checkAutocomplete,
};

const LINE_BREAK = /[\r\n\u2028\u2029]/;

function checkText(raw: unknown, field: FieldDef, path: string, singleLine: boolean): Result {
  if (typeof raw !== 'string') return fail(path, 'must be a string');
  const errors: FieldError[] = [];
  const length = codePointLength(raw);
  if (field.maxLength !== undefined && length > field.maxLength) {
    errors.push({ field: path, message: `must be at most ${field.maxLength} characters (got ${length})` });
  }
  if (raw.includes('\u0000')) errors.push({ field: path, message: 'must not contain a NUL character' });
  if (singleLine && LINE_BREAK.test(raw)) errors.push({ field: path, message: 'must be a single line (no line breaks)' });
  return errors.length > 0 ? { ok: false, errors } : pass(raw);
}

function checkChoice(raw: unknown, field: FieldDef, path: string): Result {
  const values = choiceValues(field);
  if (typeof raw !== 'string' || !values.includes(raw)) {
    return fail(path, `must be one of: ${values.join(', ')}`);
  }
  return pass(raw);
}

function checkMultipleChoice(raw: unknown, field: FieldDef, path: string): Result {
  const values = choiceValues(field);
  if (!Array.isArray(raw)) return fail(path, `must be a list of values among: ${values.join(', ')}`);
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  raw.forEach((item: unknown, i) => {
    const itemPath = `${path}[${i}]`;
    if (typeof item !== 'string' || !values.includes(item)) {
      errors.push({ field: itemPath, message: `must be one of: ${values.join(', ')}` });
    } else if (seen.has(item)) {
      errors.push({ field: itemPath, message: `duplicate value '${item}'` });
    } else {
      seen.add(item);
    }
  });
  return errors.length > 0 ? { ok: false, errors } : pass([...raw]);
}

function choiceValues(field: FieldDef): string[] {
  return (field.choices ?? []).map((choice) => choice.value);
}

const MIN_YEAR = 1900;
const MAX_YEAR = 2200;

function checkDate(raw: unknown, _field: FieldDef, path: string): Result {
  const match = typeof raw === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(raw) : null;
  if (match === null) return fail(path, 'must be a date in the form YYYY-MM-DD');
  const message = checkDateParts(match[1], match[2], match[3]);
  return message === undefined ? pass(raw) : fail(path, message);
}

function checkApproximateDate(raw: unknown, _field: FieldDef, path: string): Result {
  const match = typeof raw === 'string' ? /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(raw) : null;
  if (match === null) return fail(path, 'must be an approximate date in the form YYYY, YYYY-MM or YYYY-MM-DD');
  const message = checkDateParts(match[1], match[2], match[3]);
  return message === undefined ? pass(raw) : fail(path, message);
}

/** An error message when the year / month / day (month and day optional) is not a real date in range. */
function checkDateParts(yearText: string | undefined, monthText?: string, dayText?: string): string | undefined {
  const year = Number(yearText);
  if (year < MIN_YEAR || year > MAX_YEAR) return `year must be between ${MIN_YEAR} and ${MAX_YEAR}`;
  if (monthText === undefined) return undefined;
  const month = Number(monthText);
  if (month < 1 || month > 12) return 'month must be between 01 and 12';
  if (dayText === undefined) return undefined;
  const day = Number(dayText);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return `is not a real calendar date (day must be between 01 and ${daysInMonth})`;
  return undefined;
}

function checkInteger(raw: unknown, field: FieldDef, path: string): Result {
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw)) return fail(path, 'must be an integer (a JSON number)');
  if (field.min !== undefined && raw < field.min) return fail(path, `must be at least ${field.min}`);
  if (field.max !== undefined && raw > field.max) return fail(path, `must be at most ${field.max}`);
  return pass(raw);
}

const DECIMAL = /^-?\d{1,10}(\.\d{1,6})?$/;

function checkDecimal(raw: unknown, field: FieldDef, path: string): Result {
  const text = typeof raw === 'number' && Number.isFinite(raw) ? String(raw) : raw;
  if (typeof text !== 'string' || !DECIMAL.test(text)) {
    return fail(path, 'must be a decimal number (at most 10 digits before the point and 6 after), as a number or a string');
  }
  const value = canonicalDecimal(text);
  if (field.min !== undefined) {
    const order = compareDecimal(value, field.min);
    if (field.exclusiveMin === true ? order <= 0 : order < 0) {
      return fail(path, field.exclusiveMin === true ? `must be greater than ${field.min}` : `must be at least ${field.min}`);
    }
  }
  if (field.max !== undefined && compareDecimal(value, field.max) > 0) return fail(path, `must be at most ${field.max}`);
  return pass(value);
}

/** "007.500" → "7.5", "-0.0" → "0", "10" → "10". Input matches /^-?\d+(\.\d+)?$/. */
function canonicalDecimal(text: string): string {
  const negative = text.startsWith('-');
  const [intPart = '0', fracPart = ''] = (negative ? text.slice(1) : text).split('.');
  const int = intPart.replace(/^0+(?=\d)/, '');
  const frac = fracPart.replace(/0+$/, '');
  const body = frac === '' ? int : `${int}.${frac}`;
  return negative && body !== '0' ? `-${body}` : body;
}

/** Exact comparison of a canonical decimal string with a numeric bound: -1, 0 or 1. */
function compareDecimal(value: string, bound: number): number {
  const boundText = String(bound);
  if (!/^-?\d+(\.\d+)?$/.test(boundText)) return Math.sign(Number(value) - bound); // exotic bound: approximate
  const a = value;
  const b = canonicalDecimal(boundText);
  const aNegative = a.startsWith('-');
  const bNegative = b.startsWith('-');
  if (aNegative !== bNegative) return aNegative ? -1 : 1;
  const magnitude = compareMagnitude(aNegative ? a.slice(1) : a, bNegative ? b.slice(1) : b);
  return aNegative ? -magnitude : magnitude;
}

function compareMagnitude(a: string, b: string): number {
  const [aInt = '', aFrac = ''] = a.split('.');
  const [bInt = '', bFrac = ''] = b.split('.');
  if (aInt.length !== bInt.length) return aInt.length < bInt.length ? -1 : 1;
  const width = Math.max(aFrac.length, bFrac.length);
  const left = aInt + aFrac.padEnd(width, '0');
  const right = bInt + bFrac.padEnd(width, '0');
  return left === right ? 0 : left < right ? -1 : 1;
}

function checkCheckbox(raw: unknown, _field: FieldDef, path: string): Result {
  return typeof raw === 'boolean' ? pass(raw) : fail(path, 'must be true or false');
}

// ---------------------------------------------------------------------------------------
// Autocomplete options.

const OPTION_KEYS = ['text', 'value', 'disabled', 'description', 'annotations', 'extra'];
const OPTION_TEXT_MAX = 500;
const MAX_CODINGS = 10;

function checkAutocomplete(raw: unknown, field: FieldDef, path: string): Result {
  if (field.multiple !== true) return checkOption(raw, field, path);
  if (!Array.isArray(raw)) return fail(path, 'must be a list of autocomplete options');
  const errors: FieldError[] = [];
  if (field.maxItems !== undefined && raw.length > field.maxItems) {
    errors.push({ field: path, message: `must have at most ${field.maxItems} items (got ${raw.length})` });
  }
  const options: Record<string, unknown>[] = [];
  const seen = new Set<string | number>();
  raw.forEach((item: unknown, i) => {
    const itemPath = `${path}[${i}]`;
    const result = checkOption(item, field, itemPath);
    if (!result.ok) {
      errors.push(...result.errors);
      return;
    }
    const option = result.value as Record<string, unknown>;
    const value = option['value'] as string | number;
    if (seen.has(value)) errors.push({ field: itemPath, message: `duplicate option value ${JSON.stringify(value)}` });
    seen.add(value);
    options.push(option);
  });
  return errors.length > 0 ? { ok: false, errors } : pass(options);
}

/** One option: an object, or a string holding its JSON. */
function checkOption(raw: unknown, field: FieldDef, path: string): Result {
  const option = typeof raw === 'string' ? parseJson(raw) : raw;
  if (!isPlainObject(option)) {
    return fail(path, 'must be an autocomplete option object ({"text", "value", ...}) or a string holding its JSON');
  }
  const messages: string[] = [];
  for (const key of Object.keys(option)) {
    if (!OPTION_KEYS.includes(key)) messages.push(`unknown option key '${key}'; allowed keys: ${OPTION_KEYS.join(', ')}`);
  }
  const { text, value, disabled = false, description = null, annotations = null, extra = null } = option;

  if (typeof text !== 'string' || text === '' || codePointLength(text) > OPTION_TEXT_MAX) {
    messages.push(`option text must be a non-empty string of at most ${OPTION_TEXT_MAX} characters`);
  }
  const valueOk = (typeof value === 'string' && codePointLength(value) <= OPTION_TEXT_MAX) || (typeof value === 'number' && Number.isFinite(value));
  if (!valueOk) messages.push(`option value must be a string of at most ${OPTION_TEXT_MAX} characters or a number`);
  if (typeof disabled !== 'boolean') messages.push('option disabled must be true or false');
  else if (disabled) messages.push('option is disabled');
  if (description !== null && typeof description !== 'string') messages.push('option description must be a string or null');
  if (annotations !== null && !Array.isArray(annotations)) messages.push('option annotations must be a list or null');
  if (extra !== null && !isPlainObject(extra)) messages.push('option extra must be an object or null');
  else if (extra !== null && Object.hasOwn(extra, 'coding')) messages.push(...checkCodings(extra['coding'], field));

  if (messages.length > 0) return { ok: false, errors: messages.map((message) => ({ field: path, message })) };
  return pass({ text, value, disabled, description, annotations, extra });
}

function checkCodings(coding: unknown, field: FieldDef): string[] {
  if (!Array.isArray(coding) || coding.length > MAX_CODINGS) {
    return [`option extra.coding must be a list of at most ${MAX_CODINGS} codings`];
  }
  const messages: string[] = [];
  coding.forEach((entry: unknown, i) => {
    const where = `option extra.coding[${i}]`;
    if (!isPlainObject(entry)) {
      messages.push(`${where} must be an object {code, display, system}`);
      return;
    }
    const { code, display, system } = entry;
    if (typeof code !== 'string' && !(typeof code === 'number' && Number.isFinite(code))) {
      messages.push(`${where}.code must be a string or a number`);
    }
    if (display !== undefined && typeof display !== 'string') messages.push(`${where}.display must be a string`);
    if (typeof system !== 'string') {
      messages.push(`${where}.system must be a string`);
    } else if (field.codingSystems !== undefined && !field.codingSystems.includes(system)) {
      messages.push(`${where}.system '${system}' is not allowed here; allowed systems: ${field.codingSystems.join(', ')}`);
    }
  });
  return messages;
}

// ---------------------------------------------------------------------------------------
// Helpers.

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function codePointLength(text: string): number {
  let length = 0;
  for (const _ of text) length++;
  return length;
}
