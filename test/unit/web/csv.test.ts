import Papa from 'papaparse';
import { CsvFileError, MAX_IMPORT_ROWS, parseCsvText, resultColumns, safeCell, toCsv } from '../../../web/app/src/csv.js';

/** The web app's CSV module (browser code, pure): reading an import, writing an export. */

test('cells that a spreadsheet would run as a formula get a leading quote (OWASP CSV injection); others are kept', () => {
  expect(['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tx', '\rx'].map(safeCell)).toEqual(["'=1+1", "'+SUM(A1)", "'-2+3", "'@cmd", "'\tx", "'\rx"]);
  expect(['Ana', 'a=b', '', 'x@y.test'].map(safeCell)).toEqual(['Ana', 'a=b', '', 'x@y.test']);
  expect([null, undefined, 42, { a: 1 }].map(safeCell)).toEqual(['', '', '42', '{"a":1}']);
});

test('an export reads back as the rows it was made from, nested fields flattened by the tier\'s columns', () => {
  const rows = [
    { full_name: 'Ana "A" Lee', current_job_title: 'CTO, Robots', professional_url: 'prof.example/in/ana', company: { name: '=Acme', domain: 'acme.test', employee_count: 12 } },
    { full_name: 'Ben\nKo', company: { name: 'Beta' } },
  ];
  const text = toCsv(resultColumns('people_search', rows), rows);
  const back = Papa.parse<Record<string, string>>(text, { header: true }).data;
  expect(back[0]).toMatchObject({ full_name: 'Ana "A" Lee', current_job_title: 'CTO, Robots', professional_url: 'prof.example/in/ana', company_name: "'=Acme", company_domain: 'acme.test', company_employee_count: '12' });
  expect(back[1]).toMatchObject({ full_name: 'Ben\nKo', company_name: 'Beta', headline: '' });
  // A tier without a column list gets every field its rows carry.
  expect(resultColumns('some_new_tier', [{ a: 1, b: { c: 2 } }]).map((c) => c.header)).toEqual(['a', 'b.c']);
});

test('an import needs a header and at most 10,000 rows; quotes that never close are refused with the row', () => {
  expect(parseCsvText('email,first_name\r\nana@x.test,Ana\r\n\r\n')).toEqual({ headers: ['email', 'first_name'], rows: [{ email: 'ana@x.test', first_name: 'Ana' }] });
  expect(() => parseCsvText('email\n')).toThrow(new CsvFileError('The file has a header row but no rows.'));
  const big = `email\n${'a@x.test\n'.repeat(MAX_IMPORT_ROWS + 1)}`;
  expect(() => parseCsvText(big)).toThrow(/more than 10,000 rows/);
  expect(parseCsvText(`email\n${'a@x.test\n'.repeat(MAX_IMPORT_ROWS)}`).rows).toHaveLength(MAX_IMPORT_ROWS);
  expect(() => parseCsvText('email,first_name\n"ana@x.test,Ana\n')).toThrow(/^Line 2 cannot be read: Quoted field unterminated/);
  expect(() => parseCsvText('email,first_name\na,b\nc,d,e\n')).toThrow(/^Line 3 cannot be read: Too many fields/);
});
