let t = Date.now();
const { coveredCities } = await import('./shared/directory/geo.js');
coveredCities(); console.log('cities', Date.now()-t); t = Date.now();
const lp = await import('libphonenumber-js/max'); console.log('lp import', Date.now()-t); t=Date.now();
lp.isValidPhoneNumber('7400123456', 'GB'); console.log('first valid', Date.now()-t); t=Date.now();
const { generateDirectory } = await import('./shared/directory/generate.js');
let i=0; for (const r of generateDirectory({ seed: 42, people: 20000 })) i++;
console.log('gen 20k', Date.now()-t);
