import Papa from 'papaparse';

/**
 * CSV in and out of the web app, with Papa Parse (papaparse, pinned in package.json): files are read and
 * written in the browser; the server still judges every contact it is sent.
 */

/** The most data rows an import reads (the header row aside). */
export const MAX_IMPORT_ROWS = 10_000;
/** A file far larger than 10,000 contact rows could be is refused before it is read. */
export const MAX_IMPORT_BYTES = 10 * 1024 * 1024;

export interface ParsedCsv {
  headers: string[];
  rows: Record<string, string>[];
}

export class CsvFileError extends Error {}

/**
 * Read a user's file as CSV with a header row. A file that is not text CSV, not UTF-8, has no header, has more
 * than MAX_IMPORT_ROWS rows or rows Papa Parse cannot read is refused with a message saying which.
 */
export async function readCsvFile(file: File): Promise<ParsedCsv> {
  if (!/\.(csv|txt)$/i.test(file.name) && !/^text\/(csv|plain)/.test(file.type)) {
    throw new CsvFileError(`${file.name} is not a CSV file: choose a .csv file with a header row.`);
  }
  if (file.size === 0) throw new CsvFileError(`${file.name} is empty.`);
  if (file.size > MAX_IMPORT_BYTES) throw new CsvFileError(`${file.name} is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB; split it into files of at most ${MAX_IMPORT_ROWS.toLocaleString()} rows.`);
  let text: string;
  try {
    // fatal: bytes that are not UTF-8 (a Latin-1 or UTF-16 export) are an error, not silently replaced.
    text = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw new CsvFileError(`${file.name} is not UTF-8 text. Save it as "CSV UTF-8" and choose it again.`);
  }
  if (text.includes('\u0000')) throw new CsvFileError(`${file.name} is not a text CSV file.`);
  return parseCsvText(text);
}

export function parseCsvText(text: string): ParsedCsv {
  const parsed = Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim(),
    // Stop reading one row past the limit: enough to know the file is too long.
    preview: MAX_IMPORT_ROWS + 1,
  });
  const headers = (parsed.meta.fields ?? []).filter((h) => h !== '');
  if (headers.length === 0) throw new CsvFileError('The file has no header row: its first line must name the columns (for example email,first_name).');
  if (parsed.data.length > MAX_IMPORT_ROWS) throw new CsvFileError(`The file has more than ${MAX_IMPORT_ROWS.toLocaleString()} rows; split it into smaller files.`);
  if (parsed.data.length === 0) throw new CsvFileError('The file has a header row but no rows.');
  const bad = parsed.errors.find((e) => e.type === 'Quotes' || e.code === 'TooManyFields');
  // Papa Parse counts a quote error's row from the header line, a field-count error's from the first data row.
  if (bad) throw new CsvFileError(`Line ${(bad.row ?? 0) + (bad.type === 'Quotes' ? 1 : 2)} cannot be read: ${bad.message}.`);
  return { headers, rows: parsed.data };
}

/**
 * A cell safe to open in a spreadsheet (OWASP "CSV Injection"): a value starting with =, +, -, @, a tab or a
 * carriage return would run as a formula, so it gets a leading single quote. Papa Parse quotes the cell.
 */
export function safeCell(value: unknown): string {
  const s = value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

export function toCsv<T>(columns: Column<T>[], rows: T[]): string {
  return Papa.unparse(
    { fields: columns.map((c) => c.header), data: rows.map((r) => columns.map((c) => safeCell(c.value(r)))) },
    // Every field quoted, CRLF line ends (RFC 4180), a formula-looking header cannot occur (ours are fixed).
    { quotes: true, newline: '\r\n' },
  );
}

const path = (row: unknown, p: string): unknown => p.split('.').reduce<unknown>((o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), row);
const list = (row: unknown, p: string, pick?: (item: Record<string, unknown>) => string) => {
  const v = path(row, p);
  return Array.isArray(v) ? v.map((x) => (pick ? pick(x as Record<string, unknown>) : String(x))).join('; ') : v;
};
const col = (header: string, p = header): Column<Record<string, unknown>> => ({ header, value: (r) => path(r, p) });
const experience: Column<Record<string, unknown>> = { header: 'experience', value: (r) => list(r, 'experience', (e) => [e.title, e.company, e.date_range].filter(Boolean).join(', ')) };

const LEAD = [col('full_name'), col('first_name'), col('last_name'), col('current_job_title'), col('headline'), col('location'), col('professional_url'), col('company_name', 'company.name'), col('company_domain', 'company.domain'), col('company_industry', 'company.industry')];

/**
 * The columns of a job's result rows, by tier. A new tier needs only its list here; a tier without one gets
 * every field its rows carry (nested fields as a.b).
 */
export const RESULT_COLUMNS: Record<string, Column<Record<string, unknown>>[]> = {
  people_search: [...LEAD, col('company_employee_count', 'company.employee_count')],
  deep_search: [...LEAD, col('email'), col('email_status'), col('company_employee_count', 'company.employee_count'), col('score'), experience],
  agentic_search: [
    col('full_name'), col('current_job_title'), col('headline'), col('location'), col('professional_url'), col('email'), col('email_status'),
    col('company_name', 'company.name'), col('company_domain', 'company.domain'), col('company_industry', 'company.industry'), col('company_employee_count_range', 'company.employee_count_range'),
    col('tier'), col('fit_summary'), { header: 'proof_points', value: (r) => list(r, 'proof_points') }, experience,
    { header: 'evidence', value: (r) => list(r, 'evidence', (e) => [e.headline, e.url].filter(Boolean).join(' ')) },
  ],
  bulk_enrich: [
    col('index'), col('kind'), col('status'), col('credits_charged'), col('email', 'data.email'), col('email_status', 'data.email_status'),
    col('professional_url', 'data.professional_url'), col('phone', 'data.phone'), col('full_name', 'data.full_name'), col('error_code', 'error.code'), col('error_message', 'error.message'),
  ],
};

function flatKeys(value: unknown, prefix = ''): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => flatKeys(v, prefix ? `${prefix}.${k}` : k));
}

export function resultColumns(tier: string, rows: Record<string, unknown>[]): Column<Record<string, unknown>>[] {
  const known = RESULT_COLUMNS[tier];
  if (known) return known;
  const keys = [...new Set(rows.flatMap((r) => flatKeys(r)))];
  return keys.map((k) => col(k));
}
