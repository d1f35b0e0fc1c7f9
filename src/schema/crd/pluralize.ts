/**
 * English pluralisation of a lower-cased kind, giving the CRD's plural resource name. It must agree
 * with kro (which uses the flect library) because the plural is part of the CRD name
 * (`<plural>.<group>`): `PodInfo` → `podinfoes`, `Policy` → `policies`, `Status` → `statuses`.
 */

/** Whole words with an irregular or invariant plural (checked before the suffix rules). */
const IRREGULAR: Record<string, string> = {
  human: 'humans',
  matrix: 'matrices',
  vertix: 'vertices',
  index: 'indices',
  mouse: 'mice',
  louse: 'lice',
  ress: 'resses',
  ox: 'oxen',
  quiz: 'quizzes',
  series: 'series',
  octopus: 'octopi',
  equipment: 'equipment',
  information: 'information',
  rice: 'rice',
  money: 'money',
  species: 'species',
  fish: 'fish',
  sheep: 'sheep',
  jeans: 'jeans',
  police: 'police',
  dear: 'dear',
  goose: 'geese',
  tooth: 'teeth',
  foot: 'feet',
  bus: 'buses',
  fez: 'fezzes',
  piano: 'pianos',
  halo: 'halos',
  photo: 'photos',
  aircraft: 'aircraft',
  alumna: 'alumnae',
  alumnus: 'alumni',
  analysis: 'analyses',
  antenna: 'antennas',
  antithesis: 'antitheses',
  apex: 'apexes',
  appendix: 'appendices',
  axis: 'axes',
  bacillus: 'bacilli',
  bacterium: 'bacteria',
  basis: 'bases',
  beau: 'beaus',
  bison: 'bison',
  bureau: 'bureaus',
  campus: 'campuses',
  codex: 'codices',
  concerto: 'concertos',
  corpus: 'corpora',
  crisis: 'crises',
  curriculum: 'curriculums',
  deer: 'deer',
  diagnosis: 'diagnoses',
  die: 'dice',
  dwarf: 'dwarves',
  ellipsis: 'ellipses',
  erratum: 'errata',
  focus: 'foci',
  formula: 'formulas',
  fungus: 'fungi',
  genus: 'genera',
  graffito: 'graffiti',
  grouse: 'grouse',
  half: 'halves',
  hoof: 'hooves',
  hypothesis: 'hypotheses',
  larva: 'larvae',
  libretto: 'librettos',
  loaf: 'loaves',
  locus: 'loci',
  minutia: 'minutiae',
  moose: 'moose',
  nebula: 'nebulae',
  nucleus: 'nuclei',
  oasis: 'oases',
  offspring: 'offspring',
  opus: 'opera',
  parenthesis: 'parentheses',
  phenomenon: 'phenomena',
  phylum: 'phyla',
  prognosis: 'prognoses',
  radius: 'radiuses',
  referendum: 'referendums',
  salmon: 'salmon',
  shrimp: 'shrimp',
  stimulus: 'stimuli',
  stratum: 'strata',
  swine: 'swine',
  syllabus: 'syllabi',
  symposium: 'symposiums',
  synopsis: 'synopses',
  tableau: 'tableaus',
  thesis: 'theses',
  thief: 'thieves',
  trout: 'trout',
  tuna: 'tuna',
  vertebra: 'vertebrae',
  vita: 'vitae',
  vortex: 'vortices',
  wharf: 'wharves',
  wife: 'wives',
  wolf: 'wolves',
  datum: 'data',
  testis: 'testes',
  alias: 'aliases',
  shoe: 'shoes',
  news: 'news',
  ovum: 'ova',
  foo: 'foos',
};

const CONSONANTS = 'bcdfghjklmnpqrstvwxz';

/**
 * Suffix rules in flect's order; first match wins. A word that already ends with a rule's
 * replacement is taken as plural and kept (checked right after that rule's own suffix).
 */
const SUFFIX_RULES: readonly (readonly [suffix: string, replacement: string])[] = [
  ...pairs(
    'campus campuses|man men|tz tzes|alias aliases|oasis oasis|wife wives|basis basis|atum ata|adium adia|' +
      'actus acti|irus iri|iterion iteria|dium diums|ovum ova|ize izes|dge dges|focus foci|child children|' +
      'oaf oaves|randum randa|base bases|atus atuses|ode odes|person people|hello hellos|va vae|leus li|' +
      'oot eet|oose eese|box boxes|ium ia|sis ses|nna nnas|eses esis|stis stes|ex ices|ula ulae|isis ises|' +
      'use uses|lf lves|rf rves',
  ),
  ...[...'abcdefghijklmnopqrstuvwxyz'].map((c) => [`${c}fe`, `${c}ves`] as const),
  ['hive', 'hives'],
  ['quy', 'quies'],
  ...[...CONSONANTS].map((c) => [`${c}y`, `${c}ies`] as const),
  ...pairs('x xes|ch ches|ss sses|sh shes|oe oes|io ios|o oes'),
];

function pairs(spec: string): (readonly [string, string])[] {
  return spec.split('|').map((p) => {
    const [a, b] = p.split(' ');
    return [a!, b!] as const;
  });
}

const ALREADY_PLURAL = new Set(Object.values(IRREGULAR));

export function pluralize(word: string): string {
  const w = word.toLowerCase();
  if (w === '') return '';
  if (ALREADY_PLURAL.has(w)) return w;
  const irregular = IRREGULAR[w];
  if (irregular !== undefined) return irregular;
  for (const [suffix, replacement] of SUFFIX_RULES) {
    if (w.endsWith(suffix)) return w.slice(0, w.length - suffix.length) + replacement;
    if (w.endsWith(replacement)) return w;
  }
  if (w.endsWith('s')) return w;
  return `${w}s`;
}
