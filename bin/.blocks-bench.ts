import { blocksOf } from '../shared/understanding/evaluate.js';
const UNIT = 'open x office. joins x. as leads a team of hiring no open x raised Series Snowflak spokes launchs wrotes a-a-a-';
const TEXT = UNIT.repeat(Math.ceil(120_000 / UNIT.length));
const page = `<html><head><title>Careers</title></head><body>${Array.from({ length: 4 }, () => `<article><h2>Engineer</h2><p>${TEXT}</p></article>`).join('')}</body></html>`;
const about = `<html><head><title>About</title></head><body><p>X was founded in 2001 and is headquartered in ${TEXT}, AT.</p></body></html>`;
for (const [name, p] of [['careers', page], ['about', about]] as const) {
  for (let i = 0; i < 3; i++) blocksOf(p);
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) blocksOf(p);
  console.log(name, p.length, ((performance.now() - t0) / 20).toFixed(2), 'ms per page');
}
