// The release-file parser of each `import-terminology --system` name, with a one-line
// description of the file it accepts (for the command's help and docs/terminology-formats.md).
import type { ConceptRecord, TerminologyName } from '../systems.ts';
import type { ParseStats, TerminologyParser } from './common.ts';
import { parseCpt } from './cpt.ts';
import { parseHcpcs } from './hcpcs.ts';
import { parseIcd10cm } from './icd10cm.ts';
import { parseLoinc } from './loinc.ts';
import { parseRxnorm } from './rxnorm.ts';
import { parseSnomed } from './snomed.ts';

export { createParseStats, MAX_SKIPPED_EXAMPLES, TerminologyFormatError, type ParseStats, type TerminologyParser } from './common.ts';
export { icd10cmWithDot, parseIcd10cm } from './icd10cm.ts';
export { parseRxnorm, RXNORM_TERM_TYPES } from './rxnorm.ts';
export { LOINC_ACTIVE_STATUSES, parseLoinc } from './loinc.ts';
export { parseHcpcs, type HcpcsOptions } from './hcpcs.ts';
export { CPT_PREAMBLE_LINES, parseCpt } from './cpt.ts';
export { parseSnomed, readSnomedInactiveConcepts, splitSemanticTag, SNOMED_FSN, SNOMED_SYNONYM, type SnomedOptions } from './snomed.ts';

export interface TerminologyFormat {
  /** Reads the release file as a stream and yields its concepts. */
  parse: TerminologyParser;
  /** The file `--file` takes, in one line. */
  file: string;
}

export const TERMINOLOGY_FORMATS: { readonly [name in TerminologyName]: TerminologyFormat } = {
  icd10cm: { parse: parseIcd10cm, file: 'ICD-10-CM order file icd10cm_order_YYYY.txt (CMS/CDC code descriptions, fixed width)' },
  rxnorm: { parse: parseRxnorm, file: 'RxNorm RXNCONSO.RRF (NLM full or prescribable release, rrf/ folder)' },
  loinc: { parse: parseLoinc, file: 'LOINC table Loinc.csv (LoincTable/Loinc.csv of the LOINC release)' },
  hcpcs: { parse: (input, stats) => parseHcpcs(input, stats), file: 'HCPCS Level II annual file HCPC20xx_<MON>_ANWEB….txt (CMS, fixed-width record layout)' },
  cpt: { parse: parseCpt, file: 'CPT data file LONGULT.txt, MEDU.txt or SHORTU.txt (AMA licence required)' },
  snomed: { parse: (input, stats) => parseSnomed(input, stats), file: 'SNOMED CT RF2 sct2_Description_Snapshot-en_….txt (licence required)' },
};

/** Parses `input` as the release file of `name`. */
export function parseTerminology(name: TerminologyName, input: NodeJS.ReadableStream, stats?: ParseStats): AsyncGenerator<ConceptRecord> {
  return TERMINOLOGY_FORMATS[name].parse(input, stats);
}
