import { blocksOf, employeeCountRange, findProof } from '../../../shared/understanding/evaluate.js';

const today = new Date('2026-11-23T00:00:00Z');
const news = `<h1>News</h1>
<article><h2>Acme raises $40M Series B</h2><time datetime="2026-03-02">2026-03-02</time><p>Acme closed a $40M Series B funding round led by Northwind.</p></article>
<article><h2>Acme raises $5M Seed</h2><time datetime="2023-01-10">2023-01-10</time><p>Acme closed a $5M Seed funding round.</p></article>
<article><h2>Acme opens an office in London</h2><time datetime="2026-10-01">2026-10-01</time><p>Acme opened a new office in London.</p></article>`;

describe('evidence on pages', () => {
  test('pages split into dated blocks', () => {
    const blocks = blocksOf(news);
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toEqual({ headline: 'Acme raises $40M Series B', date: '2026-03-02', text: 'Acme raises $40M Series B 2026-03-02 Acme closed a $40M Series B funding round led by Northwind.' });
    expect(blocksOf('<title>Stack</title><ul><li>Snowflake</li></ul>')).toEqual([{ headline: 'Stack', date: null, text: 'Stack Snowflake' }]);
  });

  test('a check is met only by a block that says it, within its window', () => {
    const blocks = blocksOf(news);
    expect(findProof({ kind: 'funding', round: 'Series B', withinDays: 365 }, blocks, today)?.headline).toBe('Acme raises $40M Series B');
    expect(findProof({ kind: 'funding', round: 'Series B', withinDays: 200 }, blocks, today)).toBeNull();
    expect(findProof({ kind: 'funding', round: 'Seed', withinDays: 365 }, blocks, today)).toBeNull();
    expect(findProof({ kind: 'office', city: 'London', withinDays: 90 }, blocks, today)?.date).toBe('2026-10-01');
    expect(findProof({ kind: 'office', city: 'Paris', withinDays: null }, blocks, today)).toBeNull();
    expect(findProof({ kind: 'tech', tool: 'Snowflake' }, blocksOf('<ul><li>Snowflake</li><li>dbt</li></ul>'), today)).not.toBeNull();
    expect(findProof({ kind: 'tech', tool: 'Go' }, blocksOf('<ul><li>Google Cloud</li></ul>'), today)).toBeNull();
    const careers = blocksOf('<article><h2>Senior Data Engineer</h2><p>We are hiring a Senior Data Engineer in Berlin.</p></article>');
    expect(findProof({ kind: 'hiring', role: 'data engineer' }, careers, today)).not.toBeNull();
    expect(findProof({ kind: 'hiring', role: 'data scientist' }, careers, today)).toBeNull();
  });

  test('employee count ranges', () => {
    expect([1, 10, 11, 51, 200, 201, 999, 4000, 10000, 10001].map(employeeCountRange)).toEqual(['1-10', '1-10', '11-50', '51-200', '51-200', '201-500', '501-1000', '1001-5000', '5001-10000', '10001+']);
  });
});
