/**
 * `SET` clauses for an object of attribute → value, with placeholder names and values (attribute names
 * such as `status` or `error` are reserved words, so every one goes through a `#` placeholder). The
 * placeholders carry `tag`, so a caller can combine them with its own in one expression.
 */
export interface SetClauses {
  clauses: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

export function setClauses(fields: Record<string, unknown>, tag = 'f'): SetClauses {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const clauses = Object.entries(fields).map(([k, v], i) => {
    names[`#${tag}${i}`] = k;
    values[`:${tag}${i}`] = v;
    return `#${tag}${i} = :${tag}${i}`;
  });
  return { clauses, names, values };
}
