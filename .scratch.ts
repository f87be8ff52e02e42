import { generateDirectory } from './shared/directory/generate.js';
import { DirectoryRecordSchema } from './shared/directory/types.js';
const n = Number(process.argv[2] ?? 2000);
let t = Date.now(); let i = 0; const recs = [];
for (const r of generateDirectory({ seed: 42, people: n })) { recs.push(r); i++; }
console.log('gen ms', Date.now() - t, i);
t = Date.now(); for (const r of recs) DirectoryRecordSchema.parse(r); console.log('zod ms', Date.now()-t);
const people = recs.filter(r => r.type === 'person');
console.log(JSON.stringify(people[5], null, 1));
console.log(JSON.stringify(recs[3]));
const phones = people.filter(p=>p.phone).length, emails = people.filter(p=>p.work_email).length;
console.log({phones: phones/people.length, emails: emails/people.length});
const bySen: Record<string,number> = {}; for (const p of people) bySen[p.seniority]=(bySen[p.seniority]??0)+1; console.log(bySen);
const byC: Record<string,number> = {}; for (const p of people) byC[p.location.country_code]=(byC[p.location.country_code]??0)+1; console.log(byC);
const noPhoneCC: Record<string,number> = {}; 
