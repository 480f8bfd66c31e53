// The generated terminology of the autocomplete scenarios: ICD-10-like concepts, deterministic
// (seeded PRNG), with displays drawn from a Zipf-like vocabulary of clinical-looking words, so a
// few words ("unspecified", "of", "disease", "left"…) are in tens of thousands of displays and
// most in a handful. Used by the server child (which stores the concepts) and by the bench
// process (which draws search terms from the same vocabulary with the same weights).
import { mulberry32 } from './random.ts';

export const VOCABULARY_SIZE = 20_000;
/** Zipf exponent: rank r is drawn with weight 1 / r^s. */
const ZIPF_S = 1;

// The commonest words, roughly in the order of their frequency in ICD-10-CM long descriptions.
const HEAD = (
  'unspecified of disease left right with without other and due to fracture initial encounter subsequent sequela type ' +
  'injury part site bone disorder syndrome complication lower upper limb nerve artery vein joint muscle hand foot finger toe ' +
  'ankle knee hip shoulder elbow wrist eye ear skin lung heart kidney liver stomach colon bladder spinal cord neoplasm ' +
  'malignant benign infection bacterial viral pain displaced nondisplaced closed open superficial contusion laceration burn ' +
  'degree stage mild moderate severe primary secondary recurrent single episode pregnancy trimester newborn abnormal ' +
  'findings history personal family status poisoning accidental intentional assault undetermined adverse effect underdosing ' +
  'diabetes mellitus hypertension failure insufficiency obstruction stenosis hemorrhage ulcer perforation abscess cyst polyp ' +
  'deformity dislocation sprain strain multiple bilateral unilateral congenital acquired drug induced alcohol use abuse ' +
  'dependence remission routine healing delayed nonunion malunion region thigh leg arm forearm head neck face trunk chest ' +
  'abdomen pelvis back vertebra femur tibia fibula humerus radius ulna shaft end proximal distal medial lateral anterior ' +
  'posterior chronic acute'
).split(' ');

/** Never the first word of a display (as in real descriptions: "Fracture of left femur…"). */
export const NEVER_FIRST = new Set([
  'unspecified',
  'of',
  'left',
  'right',
  'with',
  'without',
  'and',
  'due',
  'to',
  'initial',
  'encounter',
  'subsequent',
  'sequela',
  'part',
  'site',
  'bilateral',
  'unilateral',
]);

const PREFIXES = [
  '',
  'hyper',
  'hypo',
  'peri',
  'endo',
  'epi',
  'para',
  'poly',
  'dys',
  'sub',
  'inter',
  'intra',
  'retro',
  'pseudo',
  'micro',
  'macro',
  'neo',
  'myo',
  'osteo',
  'pan',
  'trans',
  'supra',
];
const ROOTS = (
  'cardi hepat nephr neur gastr enter col oste arthr derm pneum bronch laryng pharyng rhin ot ophthalm encephal mening cyst ' +
  'ur hem lymph aden thyr pancreat splen chol angi phleb vas cerebr crani spondyl chondr ten fasci lip mamm mast hyster ' +
  'oophor salping prostat orchi vulv cervic esophag duoden ile jejun sigmoid proct rect append periton pleur pericard ' +
  'myocard valv aort carot glomerul pyel ureter urethr trache thorac cost stern scapul clavic carp tars phalang patell ' +
  'menisc ligament synov burs kerat conjunctiv retin uve scler cochle tympan sinus tonsil gingiv gloss sial parotid'
).split(' ');
const SUFFIXES = [
  'itis',
  'osis',
  'oma',
  'opathy',
  'algia',
  'ectomy',
  'otomy',
  'ostomy',
  'oplasty',
  'ectasia',
  'emia',
  'uria',
  'ogenic',
  'oid',
  'al',
  'ic',
  'ous',
  'ia',
  'iasis',
  'ocele',
  'orrhea',
  'orrhagia',
  'omegaly',
  'osclerosis',
  'omalacia',
  'ospasm',
  'ostenosis',
  'otrophy',
  'oplegia',
  'ocytosis',
];

let cachedVocabulary: string[] | undefined;

/** VOCABULARY_SIZE distinct words, most frequent first: HEAD, then generated ones in a seeded order. */
export function vocabulary(): string[] {
  if (cachedVocabulary !== undefined) return cachedVocabulary;
  const words = new Set(HEAD);
  const generated: string[] = [];
  for (const p of PREFIXES) for (const r of ROOTS) for (const s of SUFFIXES) generated.push(p + r + s);
  const rnd = mulberry32(4_2026);
  for (let i = generated.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [generated[i], generated[j]] = [generated[j]!, generated[i]!];
  }
  for (const w of generated) {
    if (words.size >= VOCABULARY_SIZE) break;
    words.add(w);
  }
  if (words.size < VOCABULARY_SIZE) throw new Error(`terminology: only ${words.size} distinct words`);
  cachedVocabulary = [...words];
  return cachedVocabulary;
}

/** Draws vocabulary ranks with Zipf weights (binary search over the cumulative weights). */
export function zipfSampler(size: number, rnd: () => number): () => number {
  const cumulative = new Float64Array(size);
  let sum = 0;
  for (let r = 0; r < size; r++) cumulative[r] = sum += 1 / Math.pow(r + 1, ZIPF_S);
  return () => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const CODE_CHARS = '0123456789ABCDEFGHJKLMNPQRSTVWXYZ';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTVWXYZ';

export interface GeneratedConcept {
  code: string;
  display: string;
  active: true;
}

/**
 * `count` concepts: codes of a letter, two digits, a dot and 1–4 digits or letters (all distinct),
 * displays of 3–12 vocabulary words, the first never one of NEVER_FIRST, capitalised.
 */
export function* generateConcepts(count: number): Generator<GeneratedConcept> {
  const words = vocabulary();
  const rnd = mulberry32(300_000);
  const draw = zipfSampler(words.length, rnd);
  const codes = new Set<string>();
  for (let i = 0; i < count; i++) {
    let code: string;
    do {
      let tail = '';
      const n = 1 + Math.floor(rnd() * 4);
      for (let k = 0; k < n; k++) tail += CODE_CHARS[Math.floor(rnd() * CODE_CHARS.length)];
      code = `${LETTERS[Math.floor(rnd() * LETTERS.length)]}${String(Math.floor(rnd() * 100)).padStart(2, '0')}.${tail}`;
    } while (codes.has(code));
    codes.add(code);
    const length = 3 + Math.floor(rnd() * 10);
    const out: string[] = [];
    let first: string;
    do first = words[draw()]!;
    while (NEVER_FIRST.has(first));
    out.push(first[0]!.toUpperCase() + first.slice(1));
    for (let k = 1; k < length; k++) out.push(words[draw()]!);
    yield { code, display: out.join(' '), active: true };
  }
}
