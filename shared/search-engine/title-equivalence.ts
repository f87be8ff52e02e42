/**
 * Which canonical titles a role in a query stands for: the documented equivalence table (docs/search.md "How titles
 * match"). It is a table of function lines and levels, not a list of queries: each line is one function's
 * management line under the names that function goes by (HR is also People, Human Resources and People
 * Operations), with its canonical titles per level. Two rules use it:
 *
 * - **Same line, same level, same role.** "Finance Director", "Director of Finance" and "Head of Finance"
 *   are one role; so are "HR Manager", "People Operations Manager" and "HR Business Partner" (the HR
 *   line's manager-level generalist), and "HR Director", "Director of People" and "Head of People".
 * - **A level asked for is a floor, up to VP.** "HR managers" are the people who manage HR: the line's
 *   managers, directors and heads, and VPs. "Marketing directors" are its directors, heads and VPs;
 *   "VP of Sales" is the VPs only (a Head of Sales is found by asking for the function: "sales leaders").
 *   Chief officers are roles of their own, asked for by name ("CMO") or as "C-level"/"executives".
 *
 * Titles outside every line (individual roles: Product Manager, Account Manager, Customer Success Manager,
 * Sales Engineer, Data Scientist) stand only for themselves and the narrower titles under them.
 */
import type { JobFunction } from '../directory/taxonomy.js';

export const LINE_LEVELS = ['manager', 'director', 'vp'] as const;
export type LineLevel = (typeof LINE_LEVELS)[number];

export interface TitleLine {
  /** The line's name, as the table in docs/search.md shows it. */
  line: string;
  function: JobFunction;
  /** The names the function goes by in titles (documentation; the parser's aliases carry the spellings). */
  names: string[];
  /** Canonical titles (TITLE_ROLES) per level, the line's usual title first. */
  levels: Partial<Record<LineLevel, string[]>>;
}

export const TITLE_LINES: TitleLine[] = [
  {
    line: 'HR', function: 'hr', names: ['HR', 'Human Resources', 'People', 'People Operations', 'People Ops'],
    levels: {
      manager: ['HR Manager', 'People Operations Manager', 'HR Business Partner'],
      director: ['HR Director', 'Director of People', 'Head of People'],
      vp: ['VP of Human Resources', 'VP of People'],
    },
  },
  { line: 'Sales', function: 'sales', names: ['Sales'], levels: { manager: ['Sales Manager'], director: ['Director of Sales', 'Head of Sales'], vp: ['VP of Sales'] } },
  { line: 'Marketing', function: 'marketing', names: ['Marketing'], levels: { manager: ['Marketing Manager'], director: ['Director of Marketing', 'Head of Marketing'], vp: ['VP of Marketing'] } },
  { line: 'Finance', function: 'finance', names: ['Finance'], levels: { manager: ['Finance Manager'], director: ['Director of Finance', 'Head of Finance'], vp: ['VP of Finance'] } },
  { line: 'Engineering', function: 'engineering', names: ['Engineering'], levels: { manager: ['Engineering Manager'], director: ['Director of Engineering', 'Head of Engineering'], vp: ['VP of Engineering'] } },
  { line: 'Product', function: 'product', names: ['Product'], levels: { director: ['Director of Product', 'Head of Product'], vp: ['VP of Product'] } },
  { line: 'Design', function: 'design', names: ['Design'], levels: { manager: ['Design Manager'], director: ['Director of Design', 'Head of Design'], vp: ['VP of Design'] } },
  { line: 'Operations', function: 'operations', names: ['Operations', 'Ops'], levels: { manager: ['Operations Manager'], director: ['Director of Operations', 'Head of Operations'], vp: ['VP of Operations'] } },
  { line: 'Customer Success', function: 'customer_success', names: ['Customer Success'], levels: { director: ['Director of Customer Success', 'Head of Customer Success'], vp: ['VP of Customer Success'] } },
  { line: 'Data', function: 'data', names: ['Data', 'Data Science', 'Analytics'], levels: { manager: ['Data Science Manager', 'Analytics Manager'], director: ['Director of Data Science', 'Director of Analytics', 'Head of Data'], vp: ['VP of Data'] } },
  { line: 'Legal', function: 'legal', names: ['Legal'], levels: { director: ['Director of Legal', 'Head of Legal'], vp: ['VP of Legal'] } },
  { line: 'IT', function: 'it_security', names: ['IT'], levels: { manager: ['IT Manager'], director: ['Director of IT'], vp: ['VP of IT'] } },
];

const variantsOf = new Map<string, string[]>();
for (const l of TITLE_LINES) {
  LINE_LEVELS.forEach((level, i) => {
    const same = l.levels[level] ?? [];
    const above = LINE_LEVELS.slice(i + 1).flatMap((up) => l.levels[up] ?? []);
    for (const t of same) {
      if (variantsOf.has(t)) throw new Error(`${t} is in two title lines`);
      variantsOf.set(t, [t, ...same.filter((s) => s !== t), ...above]);
    }
  });
}

/** The canonical titles a canonical title in a query stands for: itself first, then its equivalents. */
export function titleVariants(title: string): string[] {
  return variantsOf.get(title) ?? [title];
}
