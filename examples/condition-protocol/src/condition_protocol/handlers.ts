// When an HPI's narrative is changed, read the patient's active conditions and add a banner
// alert for each condition whose symptoms the narrative mentions: "thirst" in the HPI of a
// patient with type 2 diabetes points to its protocol. After the original platform's
// condition-aware protocol example.
import { BaseHandler, addBannerAlert, type ChartEntry, type Effect, type EventName } from '@charta/plugin-sdk';

/** A condition the plugin knows: the ICD-10 codes it covers (by prefix) and its symptoms, in lower case. */
export interface Protocol {
  /** Part of the banner's key (`protocol-<name>`) and of its text. */
  name: string;
  /** `E11` covers `E11`, `E11.9`, `E11.65`…: ICD-10 codes narrow a category by suffixes. */
  codePrefixes: readonly string[];
  symptoms: readonly string[];
}

export const PROTOCOLS: readonly Protocol[] = [
  { name: 'diabetes', codePrefixes: ['E11'], symptoms: ['thirst', 'blurred vision'] },
  { name: 'hypertension', codePrefixes: ['I10'], symptoms: ['headache', 'chest pain'] },
];

/** The code of a chart condition: `coding` is `{system, code, display}` (docs/api.md, "The patient's chart"). */
function codeOf(condition: ChartEntry): string {
  const coding = condition['coding'] as { code?: unknown } | null | undefined;
  return typeof coding?.code === 'string' ? coding.code.toUpperCase() : '';
}

export class ConditionSymptomAlert extends BaseHandler<'HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_UPDATE'> {
  // hpi's events say HISTORY_OF_PRESENT_ILLNESS (docs/plugins.md, "Event names"); the manifest lists the same.
  static override readonly RESPONDS_TO: readonly EventName[] = ['HISTORY_OF_PRESENT_ILLNESS_COMMAND__POST_UPDATE'];

  override async compute(): Promise<Effect[]> {
    const patient = this.event.context.patient.key;
    const raw = this.event.context.command.data['narrative'];
    const narrative = typeof raw === 'string' ? raw.toLowerCase() : '';
    // Each read is budgeted and a row of the audit trail (docs/plugins.md, "Reading the record"):
    // a narrative that names no symptom of the table needs no chart.
    const mentioned = PROTOCOLS.map((p) => ({ protocol: p, symptoms: p.symptoms.filter((s) => narrative.includes(s)) })).filter((m) => m.symptoms.length > 0);
    if (mentioned.length === 0) return [];
    const chart = await this.data.chart.get(patient);
    const codes = chart.conditions.map(codeOf);
    const effects: Effect[] = [];
    for (const { protocol, symptoms } of mentioned) {
      if (!codes.some((code) => protocol.codePrefixes.some((prefix) => code.startsWith(prefix)))) continue;
      this.log.info(`HPI ${this.event.context.command.uuid} mentions ${symptoms.join(', ')}: ${protocol.name} protocol`);
      // The same key again replaces the banner (docs/plugins.md, "Effects"), so a second update
      // mentioning the symptom does not pile banners up. A narrative is 1 to 90 characters.
      effects.push(
        addBannerAlert({
          patient,
          key: `protocol-${protocol.name}`,
          narrative: `HPI mentions ${symptoms.join(', ')}: review the ${protocol.name} protocol`.slice(0, 90),
          placement: ['chart', 'timeline'],
          intent: 'warning',
        }),
      );
    }
    return effects;
  }
}
