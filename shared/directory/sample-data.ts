/** Word lists for the sample-directory generator: names by culture, company name parts, schools. */

export interface NamePool {
  first: string[];
  last: string[];
}

export const NAMES: Record<string, NamePool> = {
  anglo: {
    first: ['James', 'Mary', 'John', 'Patricia', 'Robert', 'Jennifer', 'Michael', 'Linda', 'William', 'Elizabeth', 'David', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Christopher', 'Karen', 'Daniel', 'Emily', 'Matthew', 'Ashley', 'Andrew', 'Megan', 'Joshua', 'Rachel', 'Ryan', 'Lauren', 'Brian', 'Amanda', 'Kevin', 'Hannah', 'Jacob', 'Olivia', 'Ethan', 'Chloe', 'Liam', 'Grace', 'Noah', 'Emma', 'Oliver', 'Charlotte', 'Harry', 'Sophie', 'Jack', 'Zoë', 'Connor', 'Abigail', 'Tyler', 'Madison', 'Nathan', 'Brooke', 'Sean', 'Claire', 'Aidan', 'Fiona', 'Tom', 'Kate'],
    last: ['Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Miller', 'Davis', 'Wilson', 'Anderson', 'Taylor', 'Thomas', 'Moore', 'Jackson', 'Martin', 'Thompson', 'White', 'Harris', 'Clark', 'Lewis', 'Robinson', 'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Green', 'Baker', 'Adams', 'Nelson', 'Hill', 'Campbell', 'Mitchell', 'Roberts', 'Carter', 'Phillips', 'Evans', 'Turner', 'Parker', 'Collins', 'Edwards', 'Stewart', 'Morris', 'Murphy', 'Cook', 'Rogers', "O'Brien", 'Kelly', 'Hughes', 'Price', 'Bennett', 'Wood', 'Barnes', 'Ross', 'Henderson', 'Coleman', 'Jenkins', 'Perry', 'Powell', 'Sullivan', 'Russell', 'Fletcher', 'McDonald', 'Graham'],
  },
  hispanic: {
    first: ['José', 'María', 'Juan', 'Ana', 'Carlos', 'Lucía', 'Luis', 'Sofía', 'Miguel', 'Valentina', 'Javier', 'Camila', 'Diego', 'Isabella', 'Alejandro', 'Gabriela', 'Andrés', 'Daniela', 'Fernando', 'Paula', 'Jorge', 'Mariana', 'Ricardo', 'Carmen', 'Pablo', 'Elena', 'Sergio', 'Laura', 'Raúl', 'Natalia', 'Manuel', 'Andrea', 'Mateo', 'Ximena'],
    last: ['García', 'Rodríguez', 'Martínez', 'Hernández', 'López', 'González', 'Pérez', 'Sánchez', 'Ramírez', 'Torres', 'Flores', 'Rivera', 'Gómez', 'Díaz', 'Morales', 'Jiménez', 'Ruiz', 'Álvarez', 'Castillo', 'Romero', 'Vargas', 'Castro', 'Ortiz', 'Moreno', 'Gutiérrez', 'Navarro', 'Domínguez', 'Vega', 'Muñoz', 'Herrera', 'Medina', 'Aguilar'],
  },
  portuguese: {
    first: ['João', 'Maria', 'Pedro', 'Ana', 'Lucas', 'Beatriz', 'Gabriel', 'Juliana', 'Rafael', 'Fernanda', 'Mateus', 'Larissa', 'Gustavo', 'Camila', 'Thiago', 'Letícia', 'Felipe', 'Mariana', 'Bruno', 'Carolina', 'Rodrigo', 'Amanda', 'André', 'Luana', 'Vinícius', 'Tiago', 'Inês', 'Rita'],
    last: ['Silva', 'Santos', 'Oliveira', 'Souza', 'Rodrigues', 'Ferreira', 'Alves', 'Pereira', 'Lima', 'Gomes', 'Costa', 'Ribeiro', 'Martins', 'Carvalho', 'Almeida', 'Lopes', 'Soares', 'Fernandes', 'Vieira', 'Barbosa', 'Rocha', 'Dias', 'Nascimento', 'Araújo', 'Moreira', 'Cardoso', 'Teixeira', 'Correia'],
  },
  german: {
    first: ['Lukas', 'Anna', 'Maximilian', 'Laura', 'Felix', 'Julia', 'Jonas', 'Lea', 'Leon', 'Sophie', 'Paul', 'Katharina', 'Tobias', 'Lena', 'Florian', 'Sarah', 'Sebastian', 'Johanna', 'Moritz', 'Hannah', 'Stefan', 'Clara', 'Jan', 'Marie', 'Niklas', 'Franziska', 'Matthias', 'Jürgen', 'Sabine', 'Andreas'],
    last: ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Schulz', 'Hoffmann', 'Schäfer', 'Koch', 'Bauer', 'Richter', 'Klein', 'Wolf', 'Schröder', 'Neumann', 'Schwarz', 'Zimmermann', 'Braun', 'Krüger', 'Hofmann', 'Hartmann', 'Lange', 'Schmitt', 'Werner', 'Krause', 'Meier', 'Lehmann', 'Huber', 'Gruber'],
  },
  french: {
    first: ['Louis', 'Camille', 'Gabriel', 'Léa', 'Hugo', 'Manon', 'Arthur', 'Chloé', 'Jules', 'Inès', 'Théo', 'Sarah', 'Nathan', 'Emma', 'Lucas', 'Juliette', 'Antoine', 'Pauline', 'Thomas', 'Mathilde', 'Julien', 'Céline', 'Nicolas', 'Amélie', 'Maxime', 'Élodie', 'Pierre', 'Margaux', 'Baptiste', 'Clémence'],
    last: ['Martin', 'Bernard', 'Dubois', 'Thomas', 'Robert', 'Richard', 'Petit', 'Durand', 'Leroy', 'Moreau', 'Simon', 'Laurent', 'Lefebvre', 'Michel', 'Garcia', 'David', 'Bertrand', 'Roux', 'Vincent', 'Fournier', 'Morel', 'Girard', 'André', 'Mercier', 'Dupont', 'Lambert', 'Bonnet', 'François', 'Peeters', 'Janssens'],
  },
  italian: {
    first: ['Francesco', 'Giulia', 'Alessandro', 'Sofia', 'Lorenzo', 'Aurora', 'Matteo', 'Chiara', 'Leonardo', 'Martina', 'Andrea', 'Giorgia', 'Marco', 'Francesca', 'Luca', 'Alessia', 'Giuseppe', 'Federica', 'Davide', 'Elisa', 'Riccardo', 'Valentina', 'Simone', 'Sara'],
    last: ['Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino', 'Greco', 'Bruno', 'Gallo', 'Conti', 'De Luca', 'Mancini', 'Costa', 'Giordano', 'Rizzo', 'Lombardi', 'Moretti', 'Barbieri', 'Fontana', 'Santoro', 'Mariani'],
  },
  dutch: {
    first: ['Daan', 'Emma', 'Sem', 'Julia', 'Lucas', 'Mila', 'Levi', 'Tess', 'Bram', 'Sanne', 'Thijs', 'Fleur', 'Ruben', 'Lotte', 'Jesse', 'Anouk', 'Joris', 'Femke', 'Pieter', 'Eva', 'Wouter', 'Maaike'],
    last: ['de Jong', 'Jansen', 'de Vries', 'van den Berg', 'van Dijk', 'Bakker', 'Janssen', 'Visser', 'Smit', 'Meijer', 'de Boer', 'Mulder', 'de Groot', 'Bos', 'Vos', 'Peters', 'Hendriks', 'van Leeuwen', 'Dekker', 'Brouwer', 'de Wit', 'Dijkstra'],
  },
  nordic: {
    first: ['Erik', 'Anna', 'Lars', 'Ingrid', 'Johan', 'Sofia', 'Magnus', 'Emma', 'Anders', 'Maja', 'Henrik', 'Astrid', 'Mikkel', 'Freja', 'Nils', 'Karin', 'Oskar', 'Sigrid', 'Gustav', 'Linnea', 'Jonas', 'Ida'],
    last: ['Andersson', 'Johansson', 'Karlsson', 'Nilsson', 'Eriksson', 'Larsson', 'Olsen', 'Hansen', 'Johansen', 'Pedersen', 'Nielsen', 'Jensen', 'Berg', 'Lindqvist', 'Halvorsen', 'Lund', 'Sørensen', 'Dahl', 'Holm', 'Strand', 'Bjørnstad', 'Lindström'],
  },
  polish: {
    first: ['Jakub', 'Zuzanna', 'Kacper', 'Julia', 'Michał', 'Maja', 'Piotr', 'Aleksandra', 'Tomasz', 'Natalia', 'Paweł', 'Katarzyna', 'Krzysztof', 'Magdalena', 'Łukasz', 'Agnieszka', 'Mateusz', 'Joanna', 'Marcin', 'Monika'],
    last: ['Nowak', 'Kowalski', 'Wiśniewski', 'Wójcik', 'Kowalczyk', 'Kamiński', 'Lewandowski', 'Zieliński', 'Szymański', 'Woźniak', 'Dąbrowski', 'Kozłowski', 'Jankowski', 'Mazur', 'Kwiatkowski', 'Krawczyk', 'Piotrowski', 'Grabowski'],
  },
  indian: {
    first: ['Aarav', 'Ananya', 'Vivaan', 'Diya', 'Aditya', 'Isha', 'Arjun', 'Priya', 'Rohan', 'Kavya', 'Rahul', 'Neha', 'Vikram', 'Pooja', 'Sanjay', 'Shreya', 'Karthik', 'Divya', 'Amit', 'Anjali', 'Rajesh', 'Sneha', 'Suresh', 'Meera', 'Nikhil', 'Lakshmi', 'Siddharth', 'Aishwarya', 'Varun', 'Nisha', 'Harish', 'Deepika'],
    last: ['Sharma', 'Patel', 'Singh', 'Kumar', 'Gupta', 'Reddy', 'Iyer', 'Nair', 'Rao', 'Mehta', 'Shah', 'Joshi', 'Verma', 'Agarwal', 'Menon', 'Pillai', 'Chopra', 'Malhotra', 'Bhat', 'Desai', 'Kulkarni', 'Banerjee', 'Chatterjee', 'Mukherjee', 'Das', 'Krishnan', 'Srinivasan', 'Naidu'],
  },
  chinese: {
    first: ['Wei', 'Mei', 'Jun', 'Li', 'Hao', 'Xin', 'Yi', 'Ling', 'Jie', 'Yan', 'Kevin', 'Grace', 'Jason', 'Vivian', 'Eric', 'Cindy', 'Tony', 'Amy', 'Zhi', 'Hui'],
    last: ['Wang', 'Li', 'Zhang', 'Liu', 'Chen', 'Yang', 'Huang', 'Zhao', 'Wu', 'Zhou', 'Xu', 'Sun', 'Ma', 'Zhu', 'Hu', 'Lin', 'Tan', 'Lim', 'Ng', 'Wong', 'Lee', 'Goh'],
  },
  hebrew: {
    first: ['Noam', 'Noa', 'Itai', 'Tamar', 'Yonatan', 'Maya', 'Omer', 'Shira', 'Ariel', 'Yael', 'Eitan', 'Michal', 'Amit', 'Adi', 'Daniel', 'Roni', 'Guy', 'Lior'],
    last: ['Cohen', 'Levi', 'Mizrahi', 'Peretz', 'Biton', 'Friedman', 'Avraham', 'Azoulay', 'Katz', 'Shapiro', 'Goldberg', 'Ben-David', 'Klein', 'Rosen', 'Shalom', 'Barak'],
  },
  arabic: {
    first: ['Mohammed', 'Fatima', 'Ahmed', 'Aisha', 'Omar', 'Mariam', 'Ali', 'Layla', 'Khalid', 'Noor', 'Yousef', 'Sara', 'Hassan', 'Huda', 'Tariq', 'Rania', 'Faisal', 'Dana', 'Karim', 'Salma'],
    last: ['Al Mansouri', 'Al Hashimi', 'Haddad', 'Khalil', 'Nasser', 'Saleh', 'Hamdan', 'Rahman', 'Aziz', 'Farouk', 'Qureshi', 'Mansour', 'Darwish', 'Al Suwaidi', 'Youssef', 'Ibrahim'],
  },
  african: {
    first: ['Thabo', 'Lerato', 'Sipho', 'Nomvula', 'Kagiso', 'Zanele', 'Wanjiru', 'Kamau', 'Achieng', 'Otieno', 'Njeri', 'Mwangi', 'Tendai', 'Ayanda', 'Bongani', 'Precious', 'Lwazi', 'Naledi', 'Kofi', 'Amara'],
    last: ['Nkosi', 'Dlamini', 'Ndlovu', 'Mokoena', 'Khumalo', 'Mthembu', 'Botha', 'van der Merwe', 'Pretorius', 'Kamau', 'Otieno', 'Mwangi', 'Njoroge', 'Ochieng', 'Kariuki', 'Wanjiku', 'Naidoo', 'Pillay'],
  },
};

/** Name-culture mix per country: [culture, weight][]. Unlisted countries use their own default. */
export const CULTURES_BY_COUNTRY: Record<string, [string, number][]> = {
  US: [['anglo', 62], ['hispanic', 14], ['indian', 9], ['chinese', 8], ['german', 2], ['italian', 2], ['french', 1], ['hebrew', 1], ['arabic', 1]],
  GB: [['anglo', 80], ['indian', 8], ['polish', 3], ['french', 2], ['italian', 2], ['chinese', 2], ['arabic', 3]],
  CA: [['anglo', 65], ['french', 15], ['chinese', 8], ['indian', 8], ['hispanic', 2], ['italian', 2]],
  AU: [['anglo', 75], ['chinese', 10], ['indian', 8], ['italian', 4], ['german', 3]],
  NZ: [['anglo', 85], ['chinese', 8], ['indian', 7]],
  IE: [['anglo', 88], ['polish', 6], ['indian', 3], ['french', 3]],
  DE: [['german', 85], ['polish', 4], ['italian', 3], ['arabic', 3], ['anglo', 3], ['french', 2]],
  AT: [['german', 90], ['polish', 4], ['italian', 3], ['anglo', 3]],
  CH: [['german', 55], ['french', 30], ['italian', 15]],
  FR: [['french', 86], ['arabic', 7], ['portuguese', 3], ['italian', 2], ['anglo', 2]],
  BE: [['french', 45], ['dutch', 45], ['arabic', 5], ['anglo', 5]],
  NL: [['dutch', 88], ['arabic', 4], ['german', 3], ['anglo', 3], ['indian', 2]],
  ES: [['hispanic', 92], ['anglo', 3], ['french', 2], ['italian', 3]],
  PT: [['portuguese', 94], ['anglo', 3], ['hispanic', 3]],
  IT: [['italian', 95], ['anglo', 2], ['french', 3]],
  SE: [['nordic', 90], ['arabic', 4], ['anglo', 3], ['polish', 3]],
  DK: [['nordic', 93], ['german', 3], ['anglo', 4]],
  NO: [['nordic', 93], ['polish', 4], ['anglo', 3]],
  PL: [['polish', 97], ['anglo', 3]],
  BR: [['portuguese', 92], ['italian', 4], ['german', 2], ['hispanic', 2]],
  MX: [['hispanic', 96], ['anglo', 4]],
  IN: [['indian', 100]],
  SG: [['chinese', 70], ['indian', 15], ['anglo', 10], ['arabic', 5]],
  AE: [['arabic', 45], ['indian', 35], ['anglo', 15], ['chinese', 5]],
  IL: [['hebrew', 85], ['arabic', 10], ['anglo', 5]],
  ZA: [['african', 70], ['anglo', 20], ['indian', 10]],
  KE: [['african', 92], ['indian', 5], ['anglo', 3]],
};

/** Brand roots for invented company names (plausible, not real trademarks). */
export const BRAND_ROOTS = [
  'Northwind', 'Bluepeak', 'Silverline', 'Brightpath', 'Ironclad', 'Clearwater', 'Redwood', 'Summit', 'Lumen', 'Vertex',
  'Nimbus', 'Harbor', 'Evergreen', 'Keystone', 'Granite', 'Crescent', 'Atlas', 'Beacon', 'Cobalt', 'Everest',
  'Falcon', 'Horizon', 'Juniper', 'Maple', 'Orion', 'Pioneer', 'Quantum', 'Sterling', 'Tidal', 'Trident',
  'Vantage', 'Willow', 'Zenith', 'Aurora', 'Bramble', 'Cedar', 'Driftwood', 'Ember', 'Fjord', 'Glacier',
  'Helix', 'Indigo', 'Jasper', 'Kestrel', 'Lighthouse', 'Meridian', 'Nova', 'Oakridge', 'Pinnacle', 'Quarry',
  'Riverbend', 'Sequoia', 'Thistle', 'Upland', 'Velvet', 'Wavecrest', 'Yellowstone', 'Alder', 'Birchwood', 'Coral',
  'Dunmore', 'Elmstead', 'Foxglove', 'Greystone', 'Hollow Oak', 'Ivywell', 'Kingsbridge', 'Larkspur', 'Moonstone', 'Northstar',
  'Obsidian', 'Peregrine', 'Quillon', 'Rosewood', 'Saltmarsh', 'Tamarack', 'Umber', 'Verdant', 'Westbrook', 'Arcadia',
  'Bellwether', 'Canopy', 'Dovetail', 'Everline', 'Fathom', 'Goldcrest', 'Halcyon', 'Ironwood', 'Kinetic', 'Lodestar',
];

/** Syllables for coined brand names ("Novatrix", "Kalvora") once the roots run low. */
export const SYLLABLES = ['al', 'bri', 'cor', 'dex', 'en', 'fi', 'gal', 'hex', 'io', 'jun', 'ka', 'lum', 'mer', 'no', 'or', 'pax', 'qui', 'ra', 'sol', 'tor', 'ul', 'vel', 'wyn', 'xa', 'ya', 'zo', 'tri', 'va', 'ne', 'lo'];
export const CODA = ['a', 'ix', 'ly', 'io', 'ra', 'on', 'us', 'eo', 'ex', 'ia'];

/** Name suffixes that suit each industry (fallbacks apply for industries not listed). */
export const SUFFIXES_BY_INDUSTRY: Record<string, string[]> = {
  'Computer Software': ['Software', 'Labs', 'Systems', 'Cloud', 'AI', 'Technologies', 'io'],
  'Information Technology & Services': ['Technologies', 'IT Solutions', 'Systems', 'Digital', 'Consulting'],
  Internet: ['Labs', 'Online', 'Digital', 'Technologies'],
  'Financial Services': ['Capital', 'Financial', 'Pay', 'Wealth', 'Finance'],
  Banking: ['Bank', 'Trust', 'Savings Bank', 'Bancorp'],
  Insurance: ['Insurance', 'Assurance', 'Mutual'],
  'Hospital & Health Care': ['Health', 'Medical Center', 'Care', 'Health Partners', 'Clinics'],
  Pharmaceuticals: ['Pharma', 'Therapeutics', 'Pharmaceuticals'],
  Biotechnology: ['Bio', 'Biosciences', 'Therapeutics', 'Genomics'],
  'Medical Devices': ['Medical', 'MedTech', 'Devices'],
  'Marketing & Advertising': ['Media', 'Creative', 'Agency', 'Marketing', 'Studio'],
  Retail: ['Goods', 'Market', 'Supply Co', 'Outfitters', 'Store'],
  'Consumer Goods': ['Brands', 'Products', 'Goods'],
  Telecommunications: ['Telecom', 'Networks', 'Communications', 'Connect'],
  Automotive: ['Motors', 'Automotive', 'Mobility'],
  'Real Estate': ['Properties', 'Realty', 'Estates', 'Homes'],
  Construction: ['Construction', 'Builders', 'Contracting'],
  'Education Management': ['Learning', 'Academy', 'Education'],
  'Higher Education': ['Institute', 'College'],
  'E-Learning': ['Learning', 'Academy', 'Edu'],
  'Management Consulting': ['Consulting', 'Advisors', 'Partners', 'Strategy Group'],
  'Staffing & Recruiting': ['Talent', 'Staffing', 'Recruitment', 'People'],
  'Law Practice': ['Law', 'Legal', 'LLP', 'Law Group'],
  Accounting: ['Accounting', 'Audit', 'Accountants'],
  'Logistics & Supply Chain': ['Logistics', 'Freight', 'Shipping', 'Supply Chain'],
  'Oil & Energy': ['Energy', 'Power', 'Resources'],
  'Renewables & Environment': ['Renewables', 'Solar', 'Energy', 'Climate'],
  'Online Media': ['Media', 'News', 'Publishing'],
  Entertainment: ['Studios', 'Entertainment', 'Pictures'],
  Hospitality: ['Hotels', 'Hospitality', 'Travel', 'Resorts'],
  'Food & Beverages': ['Foods', 'Kitchen', 'Beverages', 'Brewing'],
  'Industrial Automation': ['Industries', 'Robotics', 'Manufacturing', 'Automation'],
  'Aviation & Aerospace': ['Aerospace', 'Aviation', 'Air'],
  'Computer & Network Security': ['Security', 'Cyber', 'Defense'],
  'Computer Games': ['Games', 'Studios', 'Interactive'],
  'Venture Capital & Private Equity': ['Ventures', 'Capital', 'Equity Partners'],
  'Government Administration': ['Agency', 'Authority', 'Services'],
  'Nonprofit Organization Management': ['Foundation', 'Alliance', 'Trust', 'Initiative'],
};

/** Legal-entity suffixes some company names carry, by country. */
export const LEGAL_SUFFIX: Record<string, string> = { DE: 'GmbH', AT: 'GmbH', CH: 'AG', GB: 'Ltd', IE: 'Ltd', US: 'Inc.', NL: 'B.V.', FR: 'SAS', AU: 'Pty Ltd' };

/** Universities by country (real institutions; fall back to the international list). */
export const SCHOOLS: Record<string, string[]> = {
  US: ['University of Michigan', 'University of Texas at Austin', 'Stanford University', 'University of California, Berkeley', 'Georgia Institute of Technology', 'University of Washington', 'New York University', 'Boston University', 'Arizona State University', 'Ohio State University', 'University of Illinois Urbana-Champaign', 'Pennsylvania State University', 'University of Florida', 'Purdue University', 'Carnegie Mellon University', 'University of Southern California', 'Northeastern University', 'University of Wisconsin-Madison', 'Rutgers University', 'University of North Carolina at Chapel Hill', 'Cornell University', 'Columbia University'],
  GB: ['University of Manchester', 'University College London', "King's College London", 'University of Edinburgh', 'University of Bristol', 'University of Leeds', 'University of Warwick', 'University of Birmingham', 'University of Nottingham', 'University of Oxford', 'University of Cambridge', 'London School of Economics', 'University of Glasgow', 'Imperial College London'],
  IE: ['Trinity College Dublin', 'University College Dublin', 'University College Cork', 'Dublin City University'],
  CA: ['University of Toronto', 'University of British Columbia', 'McGill University', 'University of Waterloo', 'McMaster University', 'University of Alberta', 'Queen\'s University', 'Université de Montréal'],
  AU: ['University of Sydney', 'University of Melbourne', 'UNSW Sydney', 'Monash University', 'University of Queensland', 'RMIT University'],
  NZ: ['University of Auckland', 'Victoria University of Wellington', 'University of Canterbury'],
  DE: ['Technische Universität München', 'Ludwig-Maximilians-Universität München', 'Humboldt-Universität zu Berlin', 'RWTH Aachen University', 'Universität Hamburg', 'Karlsruhe Institute of Technology', 'Goethe-Universität Frankfurt', 'Universität zu Köln'],
  AT: ['University of Vienna', 'TU Wien', 'WU Vienna'],
  CH: ['ETH Zürich', 'EPFL', 'University of Zurich', 'University of St. Gallen'],
  FR: ['Sorbonne Université', 'HEC Paris', 'École Polytechnique', 'ESSEC Business School', 'Université Paris-Saclay', 'Sciences Po', 'Université de Lyon'],
  BE: ['KU Leuven', 'Ghent University', 'Université libre de Bruxelles'],
  NL: ['University of Amsterdam', 'Delft University of Technology', 'Erasmus University Rotterdam', 'Utrecht University', 'Eindhoven University of Technology'],
  ES: ['Universidad Complutense de Madrid', 'Universitat de Barcelona', 'IE Business School', 'ESADE', 'Universidad Politécnica de Madrid', 'Universitat Pompeu Fabra'],
  PT: ['Universidade de Lisboa', 'Universidade do Porto', 'Nova School of Business and Economics'],
  IT: ['Politecnico di Milano', 'Università Bocconi', 'Sapienza Università di Roma', 'Università di Bologna', 'Politecnico di Torino'],
  SE: ['KTH Royal Institute of Technology', 'Stockholm University', 'Lund University', 'Chalmers University of Technology'],
  DK: ['University of Copenhagen', 'Copenhagen Business School', 'Aarhus University'],
  NO: ['University of Oslo', 'Norwegian University of Science and Technology', 'BI Norwegian Business School'],
  PL: ['University of Warsaw', 'Warsaw University of Technology', 'Jagiellonian University', 'AGH University of Krakow'],
  BR: ['Universidade de São Paulo', 'Universidade Estadual de Campinas', 'Universidade Federal do Rio de Janeiro', 'Fundação Getulio Vargas', 'Insper', 'Universidade Federal de Minas Gerais'],
  MX: ['Universidad Nacional Autónoma de México', 'Tecnológico de Monterrey', 'Instituto Tecnológico Autónomo de México', 'Universidad de Guadalajara'],
  IN: ['Indian Institute of Technology Bombay', 'Indian Institute of Technology Delhi', 'Indian Institute of Technology Madras', 'Anna University', 'Vellore Institute of Technology', 'BITS Pilani', 'University of Delhi', 'Indian Institute of Management Ahmedabad', 'Manipal Institute of Technology', 'Jadavpur University', 'Savitribai Phule Pune University'],
  SG: ['National University of Singapore', 'Nanyang Technological University', 'Singapore Management University'],
  AE: ['American University of Sharjah', 'Khalifa University', 'University of Dubai'],
  IL: ['Tel Aviv University', 'Technion – Israel Institute of Technology', 'Hebrew University of Jerusalem', 'Reichman University'],
  ZA: ['University of Cape Town', 'University of the Witwatersrand', 'Stellenbosch University', 'University of Pretoria'],
  KE: ['University of Nairobi', 'Strathmore University', 'Kenyatta University'],
  INTL: ['INSEAD', 'London Business School', 'Harvard Business School', 'Massachusetts Institute of Technology', 'University of Oxford', 'Wharton School of the University of Pennsylvania'],
};

/** Bachelor's fields per job function. */
export const FIELDS: Record<string, string[]> = {
  engineering: ['Computer Science', 'Software Engineering', 'Electrical Engineering', 'Mathematics', 'Computer Engineering'],
  data: ['Computer Science', 'Statistics', 'Mathematics', 'Physics', 'Economics', 'Data Science'],
  it_security: ['Computer Science', 'Information Systems', 'Cybersecurity', 'Information Technology'],
  product: ['Computer Science', 'Business Administration', 'Economics', 'Industrial Engineering'],
  design: ['Graphic Design', 'Human-Computer Interaction', 'Industrial Design', 'Fine Arts', 'Psychology'],
  sales: ['Business Administration', 'Marketing', 'Communications', 'Economics', 'Psychology'],
  marketing: ['Marketing', 'Communications', 'Business Administration', 'Journalism', 'Psychology'],
  finance: ['Finance', 'Accounting', 'Economics', 'Business Administration'],
  hr: ['Psychology', 'Human Resource Management', 'Business Administration', 'Sociology'],
  operations: ['Business Administration', 'Industrial Engineering', 'Supply Chain Management', 'Economics'],
  customer_success: ['Business Administration', 'Communications', 'Psychology', 'Marketing'],
  legal: ['Law'],
  retail: ['Business Administration', 'Retail Management', 'Marketing', 'Fashion Merchandising', 'Economics'],
  clinical: ['Nursing', 'Medicine', 'Pharmacy', 'Physical Therapy', 'Radiologic Technology', 'Biology'],
  education: ['Education', 'Mathematics', 'English Literature', 'Biology', 'History', 'Educational Leadership'],
  manufacturing: ['Mechanical Engineering', 'Industrial Engineering', 'Chemical Engineering', 'Manufacturing Technology'],
  trades: ['Construction Management', 'Electrical Technology', 'Civil Engineering', 'Building Technology'],
  public_sector: ['Public Administration', 'Political Science', 'Social Work', 'Urban Planning', 'Economics'],
  executive: ['Business Administration', 'Economics', 'Computer Science', 'Engineering'],
};

/**
 * More first and last names per culture, so that a country's people have many thousands of
 * distinct full names (first x last combinations) as a real workforce does. Merged into NAMES
 * (duplicates dropped).
 */
const MORE_NAMES: Record<string, NamePool> = {
  anglo: {
    first: ['Adam', 'Alex', 'Alice', 'Amy', 'Angela', 'Anna', 'Anthony', 'Benjamin', 'Beth', 'Caleb', 'Cameron', 'Caroline', 'Catherine', 'Charles', 'Christina', 'Colin', 'Courtney', 'Dana', 'Derek', 'Diana', 'Dylan', 'Edward', 'Eleanor', 'Eric', 'Erin', 'Evan', 'Frances', 'Gavin', 'George', 'Gregory', 'Heather', 'Helen', 'Henry', 'Holly', 'Ian', 'Isaac', 'Jacqueline', 'Jake', 'Jane', 'Jasmine', 'Jason', 'Jeffrey', 'Jenna', 'Jeremy', 'Jill', 'Joanna', 'Jonathan', 'Jordan', 'Julia', 'Justin', 'Katherine', 'Kathleen', 'Kayla', 'Keith', 'Kelly', 'Kyle', 'Laura', 'Leah', 'Lucy', 'Luke', 'Margaret', 'Mark', 'Martha', 'Melissa', 'Molly', 'Natalie', 'Neil', 'Nicholas', 'Nicole', 'Owen', 'Patrick', 'Paul', 'Peter', 'Philip', 'Rebecca', 'Samuel', 'Scott', 'Shannon', 'Simon', 'Stephanie', 'Stephen', 'Steven', 'Tara', 'Timothy', 'Victoria', 'Wendy', 'Zachary', 'Alan', 'Bradley', 'Brandon', 'Carl', 'Craig', 'Dean', 'Donna', 'Gary', 'Gemma', 'Harriet', 'Imogen', 'Jamie', 'Lily', 'Mia', 'Naomi', 'Poppy', 'Ruby', 'Spencer', 'Trevor', 'Wesley'],
    last: ['Hall', 'Lee', 'Wright', 'Lopez', 'Hill', 'Ward', 'Cox', 'Howard', 'Peterson', 'Gray', 'Watson', 'Brooks', 'Kelly', 'Sanders', 'Butler', 'Foster', 'Bryant', 'Alexander', 'Griffin', 'Hayes', 'Myers', 'Ford', 'Hamilton', 'Wallace', 'West', 'Cole', 'Reynolds', 'Fisher', 'Ellis', 'Harrison', 'Gibson', 'Mcdonald', 'Marshall', 'Owens', 'Kennedy', 'Wells', 'Tucker', 'Porter', 'Hunter', 'Hicks', 'Crawford', 'Henry', 'Boyd', 'Mason', 'Kennedy', 'Warren', 'Dixon', 'Burns', 'Gordon', 'Shaw', 'Holmes', 'Rice', 'Robertson', 'Hunt', 'Black', 'Daniels', 'Palmer', 'Mills', 'Grant', 'Knight', 'Ferguson', 'Stone', 'Hawkins', 'Dunn', 'Perkins', 'Hudson', 'Spencer', 'Gardner', 'Stephens', 'Payne', 'Pierce', 'Berry', 'Matthews', 'Arnold', 'Wagner', 'Willis', 'Ray', 'Watkins', 'Olson', 'Carroll', 'Duncan', 'Snyder', 'Hart', 'Cunningham', 'Bradley', 'Lane', 'Andrews', 'Ruiz', 'Harper', 'Fox', 'Riley', 'Armstrong', 'Carpenter', 'Weaver', 'Greene', 'Lawrence', 'Elliott', 'Chapman', 'Sims', 'Austin', 'Peters', 'Kelley', 'Franklin', 'Lawson', 'Fields', 'Ryan', 'Schmidt', 'Carr', 'Castillo', 'Wheeler', 'Chapman', 'Oliver', 'Montgomery', 'Richards', 'Williamson', 'Johnston', 'Banks', 'Meyer', 'Bishop', 'McCoy', 'Howell', 'Morrison', 'Hansen', 'Harvey', 'Little', 'Burton', 'Stanley', 'Nguyen', 'George', 'Jacobs', 'Reid', 'Fuller', 'Lynch', 'Dean', 'Gilbert', 'Garrett', 'Romero', 'Welch', 'Larson', 'Frazier', 'Burke', 'Hanson', 'Day', 'Moran', 'Barker', 'Walsh', 'Byrne', 'Quinn', 'Doyle', 'Lowe', 'Norris', 'Fleming', 'Holland', 'Booth', 'Dawson', 'Pearce', 'Lloyd', 'Kerr', 'Barrett', 'Atkinson', 'Saunders', 'Chambers', 'Hodgson', 'Sutton', 'Bird', 'Ashworth'],
  },
  hispanic: {
    first: ['Adriana', 'Alberto', 'Alicia', 'Álvaro', 'Antonio', 'Beatriz', 'Carla', 'Carmen', 'Cristina', 'Eduardo', 'Elena', 'Emilio', 'Enrique', 'Esteban', 'Eva', 'Felipe', 'Francisco', 'Guillermo', 'Héctor', 'Ignacio', 'Inés', 'Irene', 'Jorge', 'Julia', 'Laura', 'Lorena', 'Manuel', 'Marcos', 'Marta', 'Mateo', 'Mercedes', 'Natalia', 'Nicolás', 'Nuria', 'Óscar', 'Pablo', 'Patricia', 'Pedro', 'Pilar', 'Rafael', 'Ramón', 'Raquel', 'Ricardo', 'Roberto', 'Rocío', 'Rodrigo', 'Rosa', 'Santiago', 'Sergio', 'Silvia', 'Teresa', 'Tomás', 'Verónica', 'Víctor', 'Ximena', 'Yolanda', 'Gonzalo', 'Jaime', 'Lucas', 'Marina', 'Paula', 'Raúl', 'Alba', 'Andrea', 'Clara', 'Fernanda', 'Mariana', 'Renata', 'Emiliano', 'Sebastián'],
    last: ['Vázquez', 'Castro', 'Ortiz', 'Rubio', 'Marín', 'Sanz', 'Núñez', 'Iglesias', 'Medina', 'Garrido', 'Cortés', 'Castillo', 'Santos', 'Lozano', 'Guerrero', 'Cano', 'Prieto', 'Méndez', 'Cruz', 'Calvo', 'Gallego', 'Vidal', 'León', 'Márquez', 'Herrera', 'Peña', 'Flores', 'Cabrera', 'Campos', 'Vega', 'Fuentes', 'Carrasco', 'Diez', 'Caballero', 'Reyes', 'Nieto', 'Aguilar', 'Pascual', 'Santana', 'Herrero', 'Lorenzo', 'Montero', 'Hidalgo', 'Giménez', 'Ibáñez', 'Ferrer', 'Durán', 'Santiago', 'Benítez', 'Mora', 'Vicente', 'Vargas', 'Arias', 'Carmona', 'Crespo', 'Román', 'Pastor', 'Soto', 'Sáez', 'Velasco', 'Moya', 'Soler', 'Parra', 'Esteban', 'Bravo', 'Gallardo', 'Rojas', 'Mendoza', 'Salazar', 'Contreras', 'Guzmán', 'Navarro', 'Domínguez', 'Ramos', 'Serrano', 'Blanco', 'Molina', 'Suárez', 'Delgado', 'Ortega'],
  },
  portuguese: {
    first: ['Adriana', 'Alexandre', 'Aline', 'André', 'Antônio', 'Bianca', 'Bruno', 'Caio', 'Carla', 'Carlos', 'Carolina', 'Cláudia', 'Daniel', 'Daniela', 'Diego', 'Eduardo', 'Fábio', 'Flávia', 'Francisco', 'Gabriela', 'Guilherme', 'Helena', 'Igor', 'Isabela', 'Jéssica', 'Joana', 'Jorge', 'José', 'Júlia', 'Leonardo', 'Luana', 'Luiz', 'Marcelo', 'Marcos', 'Mariana', 'Miguel', 'Natália', 'Patrícia', 'Paulo', 'Priscila', 'Renata', 'Ricardo', 'Rodrigo', 'Sofia', 'Tatiana', 'Tiago', 'Vanessa', 'Vinícius', 'Vitória', 'Rui', 'Inês', 'Diogo', 'Catarina', 'Nuno', 'Marta', 'Hugo', 'Raquel', 'Sérgio', 'Leandro', 'Renato'],
    last: ['Araújo', 'Barbosa', 'Barros', 'Batista', 'Borges', 'Cardoso', 'Castro', 'Correia', 'Cunha', 'Dias', 'Duarte', 'Freitas', 'Machado', 'Marques', 'Mendes', 'Monteiro', 'Moreira', 'Moura', 'Nascimento', 'Nunes', 'Pinto', 'Ramos', 'Reis', 'Rocha', 'Sousa', 'Teixeira', 'Vieira', 'Azevedo', 'Campos', 'Cavalcanti', 'Coelho', 'Farias', 'Fonseca', 'Guimarães', 'Jesus', 'Leite', 'Lima', 'Macedo', 'Matos', 'Medeiros', 'Miranda', 'Nogueira', 'Pires', 'Queiroz', 'Rezende', 'Sales', 'Siqueira', 'Tavares', 'Vasconcelos', 'Xavier', 'Andrade', 'Brito', 'Caldeira', 'Figueiredo', 'Gonçalves', 'Henriques', 'Louro', 'Magalhães', 'Neves', 'Peixoto'],
  },
  german: {
    first: ['Alexander', 'Andreas', 'Anja', 'Annika', 'Benjamin', 'Birgit', 'Carina', 'Christian', 'Christina', 'Daniel', 'David', 'Dennis', 'Dominik', 'Elias', 'Elena', 'Emilia', 'Eva', 'Fabian', 'Franziska', 'Frank', 'Hannah', 'Jan', 'Jana', 'Jens', 'Jonathan', 'Kai', 'Kathrin', 'Kerstin', 'Lara', 'Lars', 'Lina', 'Marie', 'Marco', 'Markus', 'Martin', 'Matthias', 'Michael', 'Miriam', 'Nadine', 'Nico', 'Niklas', 'Nina', 'Oliver', 'Patrick', 'Philipp', 'Ralf', 'Sabine', 'Sandra', 'Simon', 'Stefan', 'Stefanie', 'Susanne', 'Thomas', 'Tim', 'Ulrike', 'Vanessa', 'Jörg', 'Jürgen', 'Uwe', 'Marlene', 'Theresa', 'Carolin', 'Henrik', 'Luisa', 'Torsten', 'Wolfgang'],
    last: ['Zimmermann', 'Braun', 'Krüger', 'Hofmann', 'Hartmann', 'Lange', 'Schmitt', 'Werner', 'Schmitz', 'Krause', 'Meier', 'Lehmann', 'Schmid', 'Schulze', 'Maier', 'Köhler', 'Herrmann', 'König', 'Walter', 'Mayer', 'Huber', 'Kaiser', 'Fuchs', 'Peters', 'Lang', 'Scholz', 'Möller', 'Weiß', 'Jung', 'Hahn', 'Schubert', 'Vogel', 'Friedrich', 'Keller', 'Günther', 'Frank', 'Berger', 'Winkler', 'Roth', 'Beck', 'Lorenz', 'Baumann', 'Franke', 'Albrecht', 'Schuster', 'Simon', 'Ludwig', 'Böhm', 'Winter', 'Kraus', 'Martin', 'Schumacher', 'Krämer', 'Vogt', 'Stein', 'Jäger', 'Otto', 'Sommer', 'Groß', 'Seidel', 'Heinrich', 'Brandt', 'Haas', 'Schreiber', 'Graf', 'Schulte', 'Dietrich', 'Ziegler', 'Kuhn', 'Kühn', 'Pohl', 'Engel', 'Horn', 'Busch', 'Bergmann', 'Thomas', 'Voigt', 'Sauer', 'Arnold', 'Wolff'],
  },
  french: {
    first: ['Adrien', 'Alexandre', 'Alice', 'Amélie', 'Anaïs', 'Audrey', 'Aurélie', 'Baptiste', 'Benjamin', 'Caroline', 'Cécile', 'Charlotte', 'Claire', 'Clément', 'Damien', 'Delphine', 'Élise', 'Émilie', 'Étienne', 'Fabien', 'Florian', 'François', 'Guillaume', 'Hélène', 'Isabelle', 'Jérôme', 'Julien', 'Laure', 'Laurent', 'Lucie', 'Marc', 'Margaux', 'Marie', 'Mathieu', 'Maxime', 'Mélanie', 'Nicolas', 'Olivier', 'Pascal', 'Pierre', 'Quentin', 'Romain', 'Sandrine', 'Sébastien', 'Sophie', 'Stéphane', 'Sylvie', 'Valérie', 'Vincent', 'Virginie', 'Yann', 'Zoé', 'Noémie', 'Océane', 'Paul', 'Raphaël', 'Thibault', 'Victor', 'Agathe', 'Bastien'],
    last: ['Fournier', 'Morel', 'Girard', 'André', 'Lefèvre', 'Mercier', 'Dupont', 'Lambert', 'Bonnet', 'François', 'Martinez', 'Legrand', 'Garnier', 'Faure', 'Rousseau', 'Blanc', 'Guerin', 'Muller', 'Henry', 'Roussel', 'Nicolas', 'Perrin', 'Morin', 'Mathieu', 'Clement', 'Gauthier', 'Dumont', 'Lopez', 'Fontaine', 'Chevalier', 'Robin', 'Masson', 'Sanchez', 'Gerard', 'Nguyen', 'Boyer', 'Denis', 'Lemaire', 'Duval', 'Joly', 'Gautier', 'Roger', 'Roche', 'Roy', 'Noel', 'Meyer', 'Lucas', 'Meunier', 'Jean', 'Perez', 'Marchand', 'Dufour', 'Blanchard', 'Marie', 'Barbier', 'Brun', 'Dumas', 'Brunet', 'Schmitt', 'Leroux', 'Colin', 'Fernandez', 'Pierre', 'Renard', 'Arnaud', 'Rolland', 'Caron', 'Aubert', 'Giraud', 'Leclerc', 'Vidal', 'Bourgeois', 'Renaud', 'Lemoine', 'Picard', 'Gaillard', 'Philippe', 'Leclercq', 'Lacroix', 'Fabre'],
  },
  italian: {
    first: ['Alberto', 'Anna', 'Antonio', 'Arianna', 'Beatrice', 'Camilla', 'Carlo', 'Claudia', 'Cristina', 'Daniele', 'Davide', 'Elena', 'Elisa', 'Emanuele', 'Fabio', 'Federico', 'Filippo', 'Gabriele', 'Giacomo', 'Gianluca', 'Giovanni', 'Ilaria', 'Laura', 'Lucia', 'Marco', 'Maria', 'Michele', 'Nicola', 'Paola', 'Paolo', 'Pietro', 'Riccardo', 'Roberta', 'Roberto', 'Sara', 'Silvia', 'Simone', 'Stefano', 'Tommaso', 'Valentina', 'Valerio', 'Veronica', 'Vittoria', 'Alessio', 'Edoardo', 'Greta', 'Irene', 'Mattia', 'Noemi', 'Serena'],
    last: ['Moretti', 'Barbieri', 'Fontana', 'Santoro', 'Mariani', 'Rinaldi', 'Caruso', 'Ferrara', 'Galli', 'Martini', 'Leone', 'Longo', 'Gentile', 'Martinelli', 'Vitale', 'Lombardo', 'Serra', 'Coppola', 'De Santis', "D'Angelo", 'Marchetti', 'Parisi', 'Villa', 'Conte', 'Ferraro', 'Ferri', 'Fabbri', 'Bianco', 'Marini', 'Grasso', 'Valentini', 'Messina', 'Sala', 'De Angelis', 'Gatti', 'Pellegrini', 'Palumbo', 'Sanna', 'Farina', 'Rizzi', 'Monti', 'Cattaneo', 'Morelli', 'Amato', 'Silvestri', 'Mazza', 'Testa', 'Grassi', 'Pellegrino', 'Carbone', 'Giuliani', 'Benedetti', 'Barone', 'Rossetti', 'Caputo', 'Montanari', 'Guerra', 'Palmieri', 'Bernardi', 'Martino'],
  },
  dutch: {
    first: ['Anne', 'Bas', 'Bart', 'Daan', 'Demi', 'Dirk', 'Esther', 'Floor', 'Frank', 'Gijs', 'Hanna', 'Ilse', 'Inge', 'Iris', 'Jasper', 'Jeroen', 'Joost', 'Judith', 'Kim', 'Koen', 'Laura', 'Lieke', 'Lisa', 'Maarten', 'Marieke', 'Mark', 'Martijn', 'Max', 'Merel', 'Niels', 'Noor', 'Olivier', 'Roel', 'Roos', 'Sander', 'Sophie', 'Stijn', 'Tim', 'Tom', 'Vera', 'Willem', 'Yara', 'Lars', 'Nina', 'Rick', 'Annelies', 'Hugo', 'Jelle', 'Karin', 'Evi'],
    last: ['Dekker', 'Brouwer', 'de Wit', 'Dijkstra', 'Smits', 'de Graaf', 'van der Meer', 'van der Linden', 'Kok', 'Jacobs', 'de Haan', 'Vermeulen', 'van den Heuvel', 'van der Veen', 'van den Broek', 'de Bruijn', 'de Bruin', 'van der Heijden', 'Schouten', 'van Beek', 'Willems', 'van Vliet', 'van de Ven', 'Hoekstra', 'Maas', 'Verhoeven', 'Koster', 'van Dam', 'van der Wal', 'Prins', 'Blom', 'Huisman', 'Peeters', 'de Jonge', 'Kuipers', 'van Veen', 'Post', 'Kuiper', 'Veenstra', 'Kramer', 'van den Brink', 'Scholten', 'van Wijk', 'Postma', 'Martens', 'Vink', 'de Ruiter', 'Timmermans', 'Groen', 'Gerritsen'],
  },
  nordic: {
    first: ['Alva', 'Axel', 'Camilla', 'Daniel', 'Ebba', 'Elin', 'Elias', 'Emil', 'Frida', 'Hanna', 'Hugo', 'Ida', 'Isak', 'Jakob', 'Johanna', 'Julia', 'Kasper', 'Kristian', 'Lina', 'Lucas', 'Malin', 'Marcus', 'Mathilde', 'Mette', 'Morten', 'Nora', 'Ole', 'Per', 'Rasmus', 'Sara', 'Sebastian', 'Signe', 'Sofie', 'Stine', 'Thomas', 'Tobias', 'Tove', 'Viktor', 'Vilde', 'William', 'Anette', 'Bjørn', 'Filip', 'Hedda', 'Kari', 'Lotta', 'Mads', 'Petter', 'Silje', 'Ulrik'],
    last: ['Svensson', 'Gustafsson', 'Pettersson', 'Jonsson', 'Jansson', 'Hansson', 'Bengtsson', 'Jönsson', 'Lindberg', 'Jakobsson', 'Magnusson', 'Olsson', 'Lindström', 'Lindgren', 'Axelsson', 'Bergström', 'Lundberg', 'Lundgren', 'Mattsson', 'Berglund', 'Fredriksson', 'Sandberg', 'Henriksson', 'Forsberg', 'Sjöberg', 'Wallin', 'Engström', 'Danielsson', 'Håkansson', 'Lundin', 'Andersen', 'Christensen', 'Larsen', 'Sørensen', 'Rasmussen', 'Jørgensen', 'Petersen', 'Madsen', 'Kristensen', 'Møller', 'Karlsen', 'Nilsen', 'Eriksen', 'Haugen', 'Bakke', 'Dahl', 'Solberg', 'Strand', 'Moen', 'Lie'],
  },
  polish: {
    first: ['Adam', 'Agata', 'Anna', 'Bartosz', 'Beata', 'Damian', 'Dariusz', 'Dominika', 'Ewa', 'Filip', 'Grzegorz', 'Hubert', 'Iwona', 'Jan', 'Joanna', 'Justyna', 'Kamil', 'Karolina', 'Kinga', 'Marcin', 'Marek', 'Marta', 'Monika', 'Oliwia', 'Patryk', 'Paulina', 'Rafał', 'Robert', 'Sebastian', 'Szymon', 'Tadeusz', 'Wiktoria', 'Wojciech', 'Zofia', 'Adrian', 'Alicja', 'Barbara', 'Dawid', 'Emilia', 'Igor'],
    last: ['Wróbel', 'Krawczyk', 'Piotrowski', 'Grabowski', 'Nowakowski', 'Pawłowski', 'Michalski', 'Nowicki', 'Adamczyk', 'Dudek', 'Zając', 'Wieczorek', 'Jabłoński', 'Król', 'Majewski', 'Olszewski', 'Jaworski', 'Malinowski', 'Pawlak', 'Witkowski', 'Walczak', 'Stępień', 'Górski', 'Rutkowski', 'Michalak', 'Sikora', 'Ostrowski', 'Baran', 'Duda', 'Szewczyk', 'Tomaszewski', 'Pietrzak', 'Marciniak', 'Wróblewski', 'Zalewski', 'Jakubowski', 'Jasiński', 'Zawadzki', 'Sadowski', 'Bąk'],
  },
  indian: {
    first: ['Abhishek', 'Aishwarya', 'Akash', 'Akshay', 'Anil', 'Anita', 'Ankit', 'Anup', 'Aparna', 'Arun', 'Bhavna', 'Deepak', 'Deepika', 'Gaurav', 'Harish', 'Harsha', 'Jyoti', 'Kiran', 'Krishna', 'Lakshmi', 'Madhu', 'Mahesh', 'Manish', 'Meera', 'Mohan', 'Nandini', 'Naveen', 'Nikhil', 'Nisha', 'Pankaj', 'Prakash', 'Pranav', 'Preeti', 'Radha', 'Rajesh', 'Rakesh', 'Ramesh', 'Ravi', 'Rekha', 'Ritu', 'Sachin', 'Sandeep', 'Sangeeta', 'Santosh', 'Shalini', 'Shweta', 'Sneha', 'Sonal', 'Sunil', 'Suresh', 'Swati', 'Tanvi', 'Uday', 'Varun', 'Vijay', 'Vinod', 'Vishal', 'Yash', 'Ajay', 'Alok', 'Geeta', 'Hemant', 'Kunal', 'Lalitha', 'Manoj', 'Nitin', 'Pallavi', 'Rohit', 'Sanjana', 'Shruti', 'Siddharth', 'Srinivas', 'Sunita', 'Tarun', 'Usha', 'Venkat', 'Vidya', 'Aarti', 'Bhaskar', 'Chetan'],
    last: ['Banerjee', 'Bose', 'Chatterjee', 'Das', 'Dutta', 'Ghosh', 'Mukherjee', 'Sen', 'Jain', 'Kapoor', 'Khanna', 'Saxena', 'Srivastava', 'Mishra', 'Pandey', 'Tiwari', 'Dubey', 'Yadav', 'Chauhan', 'Thakur', 'Rathore', 'Bhatt', 'Trivedi', 'Pillai', 'Krishnan', 'Subramanian', 'Venkatesh', 'Raman', 'Naidu', 'Chowdary', 'Shetty', 'Hegde', 'Kamath', 'Pai', 'Prabhu', 'Kulkarni', 'Deshpande', 'Patil', 'Jadhav', 'Pawar', 'Gill', 'Sandhu', 'Dhillon', 'Grewal', 'Bajwa', 'Arora', 'Bhatia', 'Sethi', 'Ahuja', 'Mathur', 'Goel', 'Bansal', 'Mittal', 'Garg', 'Sinha', 'Prasad', 'Chandra', 'Varma', 'Murthy', 'Shenoy', 'Acharya', 'Kaur', 'Ranganathan', 'Sharma', 'Nambiar', 'Kurian', 'Thomas', 'George', 'Fernandes', "D'Souza"],
  },
  chinese: {
    first: ['An', 'Bo', 'Chen', 'Fang', 'Feng', 'Gang', 'Hong', 'Hua', 'Jian', 'Jing', 'Juan', 'Kai', 'Lan', 'Lei', 'Ming', 'Na', 'Ping', 'Qiang', 'Rui', 'Shan', 'Tao', 'Ting', 'Xia', 'Xiu', 'Yang', 'Yong', 'Yu', 'Yun', 'Zhen', 'Zhong', 'Alice', 'Andy', 'Annie', 'Ben', 'Calvin', 'Cheryl', 'Daniel', 'Emily', 'Felix', 'Helen', 'Ivy', 'Jasmine', 'Jessica', 'Joanne', 'Kelvin', 'Melissa', 'Michelle', 'Nicholas', 'Peter', 'Rachel', 'Sharon', 'Steven', 'Terence', 'Wendy'],
    last: ['Gao', 'Guo', 'He', 'Luo', 'Zheng', 'Liang', 'Xie', 'Song', 'Tang', 'Han', 'Feng', 'Deng', 'Cao', 'Peng', 'Zeng', 'Xiao', 'Tian', 'Dong', 'Pan', 'Yuan', 'Cai', 'Jiang', 'Yu', 'Du', 'Ye', 'Cheng', 'Wei', 'Su', 'Lu', 'Ding', 'Ren', 'Shen', 'Yao', 'Chan', 'Cheung', 'Ho', 'Lau', 'Leung', 'Tse', 'Yeo', 'Teo', 'Koh', 'Chua', 'Ong', 'Low', 'Seah', 'Chong', 'Foo'],
  },
  hebrew: {
    first: ['Alon', 'Avi', 'Avital', 'Boaz', 'Chen', 'Dana', 'Dor', 'Einat', 'Elad', 'Gal', 'Hila', 'Idan', 'Inbal', 'Keren', 'Liat', 'Merav', 'Meir', 'Moshe', 'Nadav', 'Neta', 'Ofir', 'Oren', 'Orly', 'Ran', 'Ronit', 'Sagi', 'Shai', 'Sharon', 'Tal', 'Tomer', 'Uri', 'Yair', 'Yoav', 'Ziv', 'Hadas', 'Efrat', 'Asaf', 'Dafna', 'Eyal', 'Lihi'],
    last: ['Levy', 'Ohana', 'Dahan', 'Gabay', 'Malka', 'Vaknin', 'Sasson', 'Amar', 'Elbaz', 'Ben-Ami', 'Weiss', 'Segal', 'Stern', 'Kaplan', 'Bar', 'Golan', 'Harel', 'Navon', 'Tal', 'Carmel', 'Sharabi', 'Yosef', 'Hadad', 'Zur', 'Ashkenazi', 'Adler', 'Gross', 'Katzir', 'Lavi', 'Oz', 'Peled', 'Ronen', 'Sagiv', 'Shamir', 'Tzur', 'Yaron'],
  },
  arabic: {
    first: ['Abdullah', 'Adel', 'Amal', 'Amina', 'Amir', 'Bilal', 'Dina', 'Farah', 'Ghada', 'Hamza', 'Hana', 'Hind', 'Ibrahim', 'Imran', 'Jamal', 'Kareem', 'Lina', 'Majid', 'Mona', 'Mustafa', 'Nabil', 'Nadia', 'Rami', 'Reem', 'Saeed', 'Samir', 'Sami', 'Yasmin', 'Zainab', 'Ziad', 'Walid', 'Rashid', 'Maha', 'Nour', 'Hadi', 'Leila', 'Mahmoud', 'Osama', 'Suha', 'Tamer'],
    last: ['Al Falasi', 'Al Marzouqi', 'Al Nuaimi', 'Al Shamsi', 'Al Zaabi', 'Al Ameri', 'Al Ali', 'Al Kaabi', 'Bakr', 'Hussein', 'Mahmoud', 'Mustafa', 'Othman', 'Salem', 'Sultan', 'Yassin', 'Zaki', 'Abbas', 'Habib', 'Hamad', 'Jaber', 'Kassem', 'Mahdi', 'Nasr', 'Qasim', 'Rizk', 'Sabbagh', 'Taha', 'Wahba', 'Zayed', 'Barakat', 'Chami', 'Fares', 'Ghanem', 'Issa', 'Khoury', 'Matar', 'Sayegh', 'Tannous', 'Antoun'],
  },
  african: {
    first: ['Abena', 'Akinyi', 'Amani', 'Baraka', 'Busisiwe', 'Chege', 'Dumisani', 'Esther', 'Faith', 'Grace', 'Hlengiwe', 'Imani', 'Jabulani', 'Joseph', 'Kamau', 'Karabo', 'Lerato', 'Lindiwe', 'Lwazi', 'Mandla', 'Mpho', 'Mwangi', 'Naledi', 'Njeri', 'Nomvula', 'Ochieng', 'Odhiambo', 'Otieno', 'Palesa', 'Rethabile', 'Sipho', 'Tebogo', 'Thabo', 'Themba', 'Tumelo', 'Wambui', 'Wanjiru', 'Zanele', 'Zodwa', 'Brian', 'Caroline', 'Dennis', 'Kevin', 'Mercy', 'Peter', 'Samuel'],
    last: ['Dlamini', 'Nkosi', 'Ndlovu', 'Khumalo', 'Mokoena', 'Mthembu', 'Zulu', 'Sithole', 'Mahlangu', 'Molefe', 'Ngcobo', 'Mabaso', 'Shabalala', 'Nel', 'Botha', 'van der Merwe', 'Pretorius', 'Kiprop', 'Kiprono', 'Korir', 'Mutua', 'Njoroge', 'Wafula', 'Wekesa', 'Kariuki', 'Maina', 'Muthoni', 'Omondi', 'Onyango', 'Owino', 'Kimani', 'Macharia', 'Chebet', 'Nyambura', 'Baloyi', 'Mkhize', 'Radebe', 'Cele', 'Ntuli', 'Gumede'],
  },
};
for (const [culture, more] of Object.entries(MORE_NAMES)) {
  const pool = NAMES[culture];
  if (!pool) continue;
  pool.first = [...new Set([...pool.first, ...more.first])];
  pool.last = [...new Set([...pool.last, ...more.last])];
}
