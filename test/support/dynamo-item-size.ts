/**
 * An item's size as DynamoDB counts it against its 400 KB limit ("DynamoDB item sizes and formats",
 * Amazon DynamoDB developer guide): attribute names and string values in UTF-8 bytes, a number about one
 * byte per two significant digits plus one, a null or boolean one byte, a list or map 3 bytes plus one per
 * element plus its elements (with their names, for a map).
 */
export function dynamoItemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, v] of Object.entries(item)) if (v !== undefined) size += Buffer.byteLength(name) + valueSize(v);
  return size;
}

function valueSize(v: unknown): number {
  if (v === null || typeof v === 'boolean') return 1;
  if (typeof v === 'string') return Buffer.byteLength(v);
  if (typeof v === 'number') return Math.ceil(String(Math.abs(v)).replace('.', '').replace(/^0+|0+$/g, '').length / 2) + 1;
  if (Array.isArray(v)) return 3 + v.reduce((n: number, e) => n + 1 + valueSize(e), 0);
  if (typeof v === 'object') return 3 + Object.entries(v as object).reduce((n, [k, e]) => (e === undefined ? n : n + 1 + Buffer.byteLength(k) + valueSize(e)), 0);
  throw new Error(`no DynamoDB size for ${typeof v}`);
}
