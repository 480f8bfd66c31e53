// Options from the patient's chart (chart/options.ts): active conditions, active medications,
// open goals of the command's own patient. Registered with the autocomplete framework when the
// app is assembled (src/autocomplete-providers.ts).
import { chartSource } from './options.ts';
import type { OptionProvider, OptionProviders, OptionSource } from '../autocomplete/types.ts';

export const chartProvider: OptionProvider<Extract<OptionSource, { kind: 'chart' }>> = {
  search: (source, ctx, term, limit) => chartSource.search(source.entity, ctx.db, ctx.patientKey, term, limit),
  resolve: (source, ctx, picked) => chartSource.resolve(source.entity, ctx.db, ctx.patientKey, picked.value),
};

/** The source kinds the chart provides. */
export const chartOptionProviders: Pick<OptionProviders, 'chart'> = { chart: chartProvider };
